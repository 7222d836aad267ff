/** Longest attachment name, in characters (code points), extension included. */
export const MAX_ATTACHMENT_NAME_CHARS = 120;
/** An extension longer than this is part of the stem, not kept when a long name is cut. */
const MAX_EXTENSION_CHARS = 16;

/** Everything up to the last `/` or `\`: a browser may send a path, and a name is never one. */
const PATH_PREFIX = /^.*[/\\]/s;
/** C0 and C1 controls and DEL. */
// eslint-disable-next-line no-control-regex -- control characters are what this strips
const CONTROLS = /[\u0000-\u001f\u007f-\u009f]/g;
/**
 * Bidirectional controls (a right-to-left override makes `gpj.exe` read as `exe.jpg`),
 * zero-width characters and the byte-order mark: invisible, and they make two names
 * that look alike differ.
 */
const INVISIBLE = /[\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/g;
/** Characters no download may carry on some system (Windows), and markup's angle brackets. */
const RESERVED = /[<>:"|?*]/g;
/** Windows device names, which cannot be saved as files there whatever the extension. */
const DEVICE_NAME = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])$/i;
const EXTENSION = new RegExp(`(\\.[A-Za-z0-9]{1,${MAX_EXTENSION_CHARS}})$`);

/**
 * A name safe to show, store, serve in a download header and address as
 * `attachments/<name>`: the last segment of any path, without control, bidi or invisible
 * characters, reserved characters replaced, whitespace collapsed, no leading dots (so
 * never `.` or `..`; a bare `.ext` becomes `file.ext`) and no trailing dots or spaces, at most MAX_ATTACHMENT_NAME_CHARS
 * with the extension kept when the stem is cut; `file` when nothing is left.
 */
export function safeAttachmentName(raw: string): string {
  let name = raw.normalize("NFC").replace(CONTROLS, "").replace(INVISIBLE, "").replace(PATH_PREFIX, "");
  name = name
    .replace(RESERVED, "_")
    .replace(/\s+/g, " ")
    .trim()
    // A name that is only an extension (`.pdf`, `.env`) keeps it: `file.pdf`.
    .replace(/^\.+(?=[A-Za-z0-9]{1,16}$)/, "file.")
    .replace(/^[\s.]+/, "")
    .replace(/[\s.]+$/, "");
  const extension = EXTENSION.exec(name)?.[1] ?? "";
  let stem = name.slice(0, name.length - extension.length);
  if (DEVICE_NAME.test(stem)) stem = `${stem}_`;
  const room = MAX_ATTACHMENT_NAME_CHARS - extension.length;
  const points = [...stem];
  if (points.length > room)
    stem = points
      .slice(0, room)
      .join("")
      .replace(/[\s.]+$/, "");
  if (stem === "") return extension ? `file${extension}` : "file";
  return stem + extension;
}

/**
 * `name`, or `name (2)`, `name (3)`… before its extension, whichever no name in `taken`
 * already is. Names compare without regard to case, as they would on a case-insensitive
 * disk and as a person reads them.
 */
export function uniqueAttachmentName(name: string, taken: Iterable<string>): string {
  const used = new Set([...taken].map((t) => t.toLowerCase()));
  if (!used.has(name.toLowerCase())) return name;
  const extension = EXTENSION.exec(name)?.[1] ?? "";
  const stem = name.slice(0, name.length - extension.length);
  for (let n = 2; ; n++) {
    const suffix = ` (${n})`;
    const points = [...stem];
    const room = MAX_ATTACHMENT_NAME_CHARS - extension.length - suffix.length;
    const candidate = `${points.length > room ? points.slice(0, room).join("") : stem}${suffix}${extension}`;
    if (!used.has(candidate.toLowerCase())) return candidate;
  }
}
