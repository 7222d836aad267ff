/**
 * Character-level helpers shared by the markdown scanners (nesting.ts, blocks.ts): they
 * walk the raw text by char code, without regexes, so a hostile message costs linear time.
 */
export function runLength(text: string, start: number, end: number, char: number): number {
  let i = start;
  while (i < end && text.charCodeAt(i) === char) i++;
  return i - start;
}

export function isBlankOrEnd(text: string, i: number, end: number): boolean {
  if (i >= end) return true;
  const c = text.charCodeAt(i);
  return c === SPACE || c === TAB;
}

/** Markdown ends a line at \n, \r\n or a lone \r: a scanner splitting on \n alone could be fooled. */
export function lineEnd(text: string, start: number): number {
  let i = start;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === LF || c === CR) break;
    i++;
  }
  return i;
}

export function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

export const TAB = 9;
export const LF = 10;
export const CR = 13;
export const SPACE = 32;
export const PAREN = 41;
export const STAR = 42;
export const PLUS = 43;
export const DASH = 45;
export const DOT = 46;
export const LT = 60;
export const GT = 62;
export const OPEN_BRACKET = 91;
export const CLOSE_BRACKET = 93;
export const UNDERSCORE = 95;
export const BACKTICK = 96;
export const TILDE = 126;
