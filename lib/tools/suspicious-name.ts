/**
 * Characters that make a file name read as something it is not, for the approval card: a
 * person approving a write must see which file it really is. Pure (no Node APIs), so the
 * card and the tools share one list.
 *
 * - `bidi`: overrides and isolates (U+202A–U+202E, U+2066–U+2069) and the marks around
 *   them reorder what follows, so `gnp.sh` can display as `hs.png`.
 * - `invisible`: zero-width and other default-ignorable characters (U+200B, U+FEFF, U+3164…)
 *   make two names that look the same differ.
 * - `control`: a line break or other control character can forge lines around the name.
 * - `look-alike`: a letter of another script among Latin ones (Cyrillic "а" in "pаypal"),
 *   or a character that stands for an ASCII one (fullwidth "ｐ", "∕" for "/").
 */
export type NameWarningKind = "bidi" | "invisible" | "control" | "look-alike";

export interface NameWarning {
  kind: NameWarningKind;
  /** "U+202E". */
  codepoint: string;
  /** The character itself. */
  char: string;
  /** One sentence a person reads: which character, and what it does. */
  message: string;
}

/** A name cut into the parts the card shows: plain text, and flagged characters with their warning. */
export type NamePart = { text: string; warning?: NameWarning };

const BIDI = /\p{Bidi_Control}/u;
const INVISIBLE = /\p{Default_Ignorable_Code_Point}/u;
// C0, DEL and C1 controls: none belongs in a file name.
const CONTROL = /\p{Cc}/u;
const ANY_FLAGGED = /[\p{Bidi_Control}\p{Default_Ignorable_Code_Point}\p{Cc}]/u;
const LETTER_RUN = /[\p{L}\p{M}]+/gu;
const ASCII_PRINTABLE = /^[\x20-\x7e]+$/;

/** Scripts whose letters pass for Latin ones; a word mixing them with Latin (or each other) is flagged. */
const LOOKALIKE_SCRIPTS = [
  ["Latin", /\p{Script=Latin}/u],
  ["Cyrillic", /\p{Script=Cyrillic}/u],
  ["Greek", /\p{Script=Greek}/u],
  ["Armenian", /\p{Script=Armenian}/u],
  ["Cherokee", /\p{Script=Cherokee}/u],
] as const;

/** Characters with no compatibility mapping that still look like a path separator. */
const SLASH_LOOKALIKES = new Set(["\u2215", "\u2044", "\u29f8", "\u2571"]);

const NAMES: Record<number, string> = {
  0x061c: "ARABIC LETTER MARK",
  0x200b: "ZERO WIDTH SPACE",
  0x200c: "ZERO WIDTH NON-JOINER",
  0x200d: "ZERO WIDTH JOINER",
  0x200e: "LEFT-TO-RIGHT MARK",
  0x200f: "RIGHT-TO-LEFT MARK",
  0x202a: "LEFT-TO-RIGHT EMBEDDING",
  0x202b: "RIGHT-TO-LEFT EMBEDDING",
  0x202c: "POP DIRECTIONAL FORMATTING",
  0x202d: "LEFT-TO-RIGHT OVERRIDE",
  0x202e: "RIGHT-TO-LEFT OVERRIDE",
  0x2060: "WORD JOINER",
  0x2066: "LEFT-TO-RIGHT ISOLATE",
  0x2067: "RIGHT-TO-LEFT ISOLATE",
  0x2068: "FIRST STRONG ISOLATE",
  0x2069: "POP DIRECTIONAL ISOLATE",
  0x00ad: "SOFT HYPHEN",
  0x3164: "HANGUL FILLER",
  0xfeff: "ZERO WIDTH NO-BREAK SPACE",
  0x2215: "DIVISION SLASH",
  0x2044: "FRACTION SLASH",
  0x29f8: "BIG SOLIDUS",
  0x2571: "BOX DRAWINGS LIGHT DIAGONAL UPPER RIGHT TO LOWER LEFT",
};

export function codepointOf(char: string): string {
  return `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;
}

function label(char: string): string {
  const name = NAMES[char.codePointAt(0)!];
  return name ? `${codepointOf(char)} ${name}` : codepointOf(char);
}

function scriptOf(char: string): string | undefined {
  return LOOKALIKE_SCRIPTS.find(([, pattern]) => pattern.test(char))?.[0];
}

/** The warning for one character seen alone (bidi, invisible, control, ASCII stand-in), or undefined. */
function charWarning(char: string): NameWarning | undefined {
  const codepoint = codepointOf(char);
  if (BIDI.test(char)) {
    return {
      kind: "bidi",
      codepoint,
      char,
      message: `${label(char)}: it changes the direction of the text around it, so the name reads differently than it is.`,
    };
  }
  if (CONTROL.test(char)) {
    return { kind: "control", codepoint, char, message: `${label(char)}, a control character: no file name should hold one.` };
  }
  if (INVISIBLE.test(char)) {
    return { kind: "invisible", codepoint, char, message: `${label(char)}, an invisible character: the name looks like another one.` };
  }
  if (SLASH_LOOKALIKES.has(char)) {
    return {
      kind: "look-alike",
      codepoint,
      char,
      message: `${label(char)} looks like "/" but is part of the name, not a folder separator.`,
    };
  }
  const compat = char.normalize("NFKC");
  if (compat !== char && !ASCII_PRINTABLE.test(char) && ASCII_PRINTABLE.test(compat)) {
    return { kind: "look-alike", codepoint, char, message: `${label(char)} looks like "${compat}" but is a different character.` };
  }
  return undefined;
}

/**
 * Letters of a minority script inside one word (a run of letters: "pаypal" in "pаypal.md";
 * "привет.md" is two words of one script each, and is not flagged).
 */
function mixedScriptWarnings(word: string): Map<number, NameWarning> {
  const chars = [...word];
  const counts = new Map<string, number>();
  const scripts = chars.map((c) => {
    const script = scriptOf(c);
    if (script) counts.set(script, (counts.get(script) ?? 0) + 1);
    return script;
  });
  const flagged = new Map<number, NameWarning>();
  if (counts.size < 2) return flagged;
  // The word's main script: the most letters, Latin on a tie (the look-alikes imitate it).
  const main = [...counts].sort((a, b) => b[1] - a[1] || Number(b[0] === "Latin") - Number(a[0] === "Latin"))[0]![0];
  let offset = 0;
  chars.forEach((char, i) => {
    const script = scripts[i];
    if (script && script !== main) {
      flagged.set(offset, {
        kind: "look-alike",
        codepoint: codepointOf(char),
        char,
        message: `${codepointOf(char)}, a ${script} letter "${char}" among ${main} letters in "${word}": the name imitates another.`,
      });
    }
    offset += char.length;
  });
  return flagged;
}

/** The name cut into plain runs and flagged characters, in order; joining every `text` gives the name back. */
export function nameParts(name: string): NamePart[] {
  const flagged = new Map<number, NameWarning>();
  for (const match of name.matchAll(LETTER_RUN)) {
    for (const [at, warning] of mixedScriptWarnings(match[0])) flagged.set(match.index + at, warning);
  }
  const parts: NamePart[] = [];
  let plain = "";
  let offset = 0;
  for (const char of name) {
    const warning = flagged.get(offset) ?? charWarning(char);
    offset += char.length;
    if (!warning) {
      plain += char;
      continue;
    }
    if (plain) parts.push({ text: plain });
    plain = "";
    parts.push({ text: char, warning });
  }
  if (plain) parts.push({ text: plain });
  return parts;
}

/** Each suspicious character of a name once (the first of each codepoint), in order. */
export function nameWarnings(name: string): NameWarning[] {
  const seen = new Map<string, NameWarning>();
  for (const part of nameParts(name)) if (part.warning && !seen.has(part.warning.codepoint)) seen.set(part.warning.codepoint, part.warning);
  return [...seen.values()];
}

/** How a flagged character that cannot be seen is written for a person: `⟨U+202E⟩`. */
export function visibleMarker(char: string): string {
  return `⟨${codepointOf(char)}⟩`;
}

/** Whether a character would be unseen (or would act on the text around it) if shown as it is. */
export function isUnseen(warning: NameWarning): boolean {
  return warning.kind !== "look-alike";
}

/**
 * One line of text with every unseen character (bidi controls, invisibles, controls but a
 * tab or the carriage return of a CRLF line end) written as `⟨U+XXXX⟩`, e.g. a diff line: a
 * right-to-left override in the new text of a file must not reorder the line the person
 * approves.
 */
export function withUnseenVisible(line: string): string {
  if (!ANY_FLAGGED.test(line)) return line;
  let out = "";
  let offset = 0;
  for (const char of line) {
    offset += char.length;
    const kept = char === "\t" || (char === "\r" && offset === line.length);
    const warning = kept ? undefined : charWarning(char);
    out += warning && isUnseen(warning) ? visibleMarker(char) : char;
  }
  return out;
}

const HEADER = /^(?:---|\+\+\+) (?:[ab]\/)?(.*)$/;

/**
 * The names an approval is about: the `path` parameter the model gave and the file the
 * preview diff names (they differ when a symbolic link in the workspace leads elsewhere).
 */
export function approvalFileNames(parameters: string, preview: string | undefined): string[] {
  const names: string[] = [];
  const lines = (preview ?? "").split("\n", 2);
  for (const line of lines) {
    const name = HEADER.exec(line)?.[1];
    if (name && name !== "/dev/null" && !names.includes(name)) names.push(name);
  }
  try {
    const asked = (JSON.parse(parameters) as { path?: unknown }).path;
    if (typeof asked === "string" && asked !== "" && !names.includes(asked)) names.push(asked);
  } catch {
    // Parameters that are not JSON name no file.
  }
  return names;
}
