import type { AttachmentKind, AttachmentType } from "@/lib/contracts";

/** What a file is, read from its content alone. */
export interface Sniffed {
  kind: AttachmentKind;
  type: AttachmentType;
  /** How a person would call the format, for messages ("a PDF", "a PNG image"). */
  label: string;
}

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const JPEG = Buffer.from([0xff, 0xd8, 0xff]);
const PDF = Buffer.from("%PDF-", "latin1");
const GIF87 = Buffer.from("GIF87a", "latin1");
const GIF89 = Buffer.from("GIF89a", "latin1");
const RIFF = Buffer.from("RIFF", "latin1");
const WEBP = Buffer.from("WEBP", "latin1");

const FORMATS: Record<AttachmentType, Sniffed> = {
  "text/plain": { kind: "text", type: "text/plain", label: "text" },
  "application/pdf": { kind: "pdf", type: "application/pdf", label: "a PDF" },
  "image/png": { kind: "image", type: "image/png", label: "a PNG image" },
  "image/jpeg": { kind: "image", type: "image/jpeg", label: "a JPEG image" },
  "image/gif": { kind: "image", type: "image/gif", label: "a GIF image" },
  "image/webp": { kind: "image", type: "image/webp", label: "a WebP image" },
};

/**
 * The format of a file from its first bytes (magic numbers), or text when the whole of it
 * is valid UTF-8 without a NUL byte; undefined for anything else. A PDF must start with
 * `%PDF-` (a reader tolerates junk before it, but a text that merely mentions `%PDF-`
 * early must stay text).
 */
export function sniff(bytes: Uint8Array): Sniffed | undefined {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 16));
  if (startsWith(head, PDF)) return FORMATS["application/pdf"];
  if (startsWith(head, PNG)) return FORMATS["image/png"];
  if (startsWith(head, JPEG)) return FORMATS["image/jpeg"];
  if (startsWith(head, GIF87) || startsWith(head, GIF89)) return FORMATS["image/gif"];
  if (startsWith(head, RIFF) && head.length >= 12 && head.subarray(8, 12).equals(WEBP)) return FORMATS["image/webp"];
  return isUtf8Text(bytes) ? FORMATS["text/plain"] : undefined;
}

/** The format stored under a MIME type. */
export function formatOf(type: AttachmentType): Sniffed {
  return FORMATS[type];
}

function startsWith(head: Buffer, magic: Buffer): boolean {
  return head.length >= magic.length && head.subarray(0, magic.length).equals(magic);
}

/** Valid UTF-8 (a decoder that throws on the first bad sequence) with no NUL byte: what the file tools call text. */
function isUtf8Text(bytes: Uint8Array): boolean {
  if (bytes.includes(0)) return false;
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** The formats a file name's extension claims; other extensions (and none) claim nothing. */
const CLAIMED: Record<string, AttachmentType> = {
  txt: "text/plain",
  pdf: "application/pdf",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
};

/**
 * Whether a name's extension lies badly about the content: it names a format of another
 * kind (`.png` holding a PDF, `.txt` holding a PDF, `.pdf` holding text). A lie within a
 * kind (`.jpg` holding a WebP, common for images saved from the web) is not bad: the
 * content decides the type either way, and the name is only a name. Returns the sentence
 * that refuses the file, or undefined.
 */
export function extensionLie(name: string, sniffed: Sniffed): string | undefined {
  const extension = /\.([A-Za-z0-9]{1,8})$/.exec(name)?.[1]?.toLowerCase();
  const claimed = extension ? CLAIMED[extension] : undefined;
  if (!claimed || FORMATS[claimed].kind === sniffed.kind) return undefined;
  return `"${name}" is named as ${FORMATS[claimed].label} (.${extension}) but its content is ${sniffed.label}; rename it to match what it is and attach it again.`;
}

/** The sentence that refuses a file of no known format. */
export function unsupportedSentence(name: string): string {
  return `"${name}" is neither text, a PDF nor an image (PNG, JPEG, GIF, WebP), so it cannot be attached. Text must be UTF-8.`;
}
