import { isBlankOrEnd, isDigit, lineEnd, runLength, BACKTICK, CR, DASH, DOT, LF, LT, PAREN, PLUS, SPACE, STAR, TAB, TILDE } from "./scan";

/**
 * Splits markdown into top-level blocks that render exactly as the whole text does when
 * each is rendered alone and the results are joined by a newline (remark-rehype joins a
 * root's children with "\n"). Streaming appends to the last block only, so the settled
 * ones before it keep their text and their memoised render: a token costs one block's
 * parse instead of the whole message's.
 *
 * The split is conservative: it happens only at a blank line followed by a line that
 * starts in column 0, is no list marker (a list may go on after a blank line) and lies
 * outside any fenced code block. Anything whose meaning crosses blocks turns splitting
 * off: link reference definitions and footnotes (`]:`, `[^` — resolved document-wide) and
 * HTML blocks (a line starting with `<`: some end only at their closing tag, not at a
 * blank line). A missed split costs time; a wrong one would change the rendering.
 * Linear in the text: each line is read once, no tree is built.
 */
export function splitBlocks(text: string): string[] {
  if (CROSS_BLOCK.test(text)) return [text];
  const blocks: string[] = [];
  let blockStart = 0;
  let hasContent = false;
  let fence: Fence | null = null;
  let afterBlank = false;
  let start = 0;
  while (start < text.length) {
    const end = lineEnd(text, start);
    const next = end + (text.charCodeAt(end) === CR && text.charCodeAt(end + 1) === LF ? 2 : 1);
    const blank = isBlank(text, start, end);
    const c = text.charCodeAt(start);
    if (fence) {
      // A fence indented by 1–3 spaces may sit in a list item, which a line in column 0
      // ends, or at the top level, where that line is code: only a parser can tell.
      if (fence.indent > 0 && !blank && c !== SPACE && c !== TAB) break;
      if (closesFence(text, start, end, fence)) fence = null;
      afterBlank = false;
    } else if (blank) {
      afterBlank = true;
    } else {
      const spaces = indent(text, start, end);
      // An HTML block may run past blank lines to its closing tag.
      if (spaces <= 3 && text.charCodeAt(start + spaces) === LT) break;
      if (afterBlank && hasContent && c !== SPACE && c !== TAB && !isListMarker(text, start, end)) {
        blocks.push(trimBlankTail(text.slice(blockStart, start)));
        blockStart = start;
      }
      fence = opensFence(text, start, end);
      hasContent = true;
      afterBlank = false;
    }
    start = next;
  }
  blocks.push(text.slice(blockStart));
  return blocks;
}

/** Whatever is resolved across the whole document: link reference definitions and footnotes. */
const CROSS_BLOCK = /\]:|\[\^/;

/** The blank lines between two blocks belong to neither: dropped so a settled block's text stays the same. */
function trimBlankTail(block: string): string {
  return block.replace(TRAILING_BLANK_LINES, "");
}

const TRAILING_BLANK_LINES = /(?:\r\n|\r|\n)[ \t]*(?:(?:\r\n|\r|\n)[ \t]*)*$/;

interface Fence {
  char: number;
  length: number;
  indent: number;
}

/** A fence opener with at most three spaces of indentation (a deeper one is indented code or list content). */
function opensFence(text: string, start: number, end: number): Fence | null {
  const at = start + indent(text, start, end);
  if (at - start > 3) return null;
  const char = text.charCodeAt(at);
  if (char !== BACKTICK && char !== TILDE) return null;
  const length = runLength(text, at, end, char);
  if (length < 3) return null;
  if (char === BACKTICK && text.slice(at + length, end).includes("`")) return null;
  return { char, length, indent: at - start };
}

function closesFence(text: string, start: number, end: number, fence: Fence): boolean {
  const at = start + indent(text, start, end);
  if (at - start > 3) return false;
  const length = runLength(text, at, end, fence.char);
  return length >= fence.length && text.slice(at + length, end).trim() === "";
}

/** `-`, `*`, `+` or up to nine digits and `.`/`)`, then a space, a tab or the end of the line. */
function isListMarker(text: string, start: number, end: number): boolean {
  const c = text.charCodeAt(start);
  if (c === DASH || c === STAR || c === PLUS) return isBlankOrEnd(text, start + 1, end);
  let i = start;
  while (i < end && i - start < 9 && isDigit(text.charCodeAt(i))) i++;
  if (i === start) return false;
  const delimiter = text.charCodeAt(i);
  return (delimiter === DOT || delimiter === PAREN) && isBlankOrEnd(text, i + 1, end);
}

function indent(text: string, start: number, end: number): number {
  let i = start;
  while (i < end && text.charCodeAt(i) === SPACE) i++;
  return i - start;
}

function isBlank(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c !== SPACE && c !== TAB) return false;
  }
  return true;
}
