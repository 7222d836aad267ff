import {
  isBlankOrEnd,
  isDigit,
  lineEnd,
  runLength,
  BACKTICK,
  CLOSE_BRACKET,
  CR,
  DASH,
  DOT,
  GT,
  LF,
  OPEN_BRACKET,
  PAREN,
  PLUS,
  SPACE,
  STAR,
  TAB,
  TILDE,
  UNDERSCORE,
} from "./scan";

/**
 * A cheap guard run before markdown is parsed. remark, mdast-util-to-hast and
 * hast-util-to-jsx-runtime all recurse once per nesting level, so model text such as
 * `"- ".repeat(1000) + "end"` overflows the stack. Measured in Node 20 (default 984 KB
 * stack) with react-markdown 10 + remark-gfm, rendered by react-dom/server: the first
 * overflow is at 1,000 nested list items (`- - - …end`), 1,042 ordered items
 * (`1. 1. …`), 1,500 alternating `- > ` containers, 2,376 blockquotes (`> > …`), and an
 * emphasis delimiter run of 4,174 (`****…a****…`, ~2,000 nested <strong>/<em>).
 * In Chromium 156 (production React, react-dom/client) the figures are alike: 1,211 list
 * items, 1,250 ordered items, 2,501 blockquotes; there the error replaces the whole chat
 * with Next's error page.
 * Nested links and images never overflow but cost quadratic time: `"![".repeat(n) + "a"
 * + "](x)".repeat(n)` takes 0.2 s at n = 512, 3 s at 2,000 and over two minutes at
 * 10,000 — a frozen tab on every open of the chat.
 *
 * The scanner reads each line once and never builds a tree, so it is linear in the text.
 * It over-estimates rather than parses: a false alarm only shows a message as plain text,
 * a miss reaches the error boundary after a costly overflow.
 */

/**
 * Deepest list/blockquote nesting rendered as markdown. Real documents nest 3–6 levels;
 * 32 leaves room for odd ones and stays ~30× below the smallest overflow above.
 */
export const MAX_NESTING = 32;

/**
 * Lines inside what looks like a fenced code block are code, but the scanner cannot tell
 * a real fence from one markdown will not honour (a fence in an HTML block, a fence whose
 * list item already ended). They still count, against this ceiling: code never nests
 * markers this deep, and an attack hidden behind a fake fence stays ~4× below overflow.
 */
export const MAX_FENCED_NESTING = 256;

/** Longest run of one emphasis delimiter (`*` or `_`): a run of n nests up to n/2 levels. */
export const MAX_DELIMITER_RUN = 512;

/** Most `[` left open at once in a paragraph: bounds link/image nesting to ~0.1 s of parsing. */
export const MAX_OPEN_BRACKETS = 256;

/**
 * True when markdown parsing could nest too deeply: some line opens more containers than
 * MAX_NESTING (MAX_FENCED_NESTING inside a fence), holds a run of emphasis delimiters
 * longer than MAX_DELIMITER_RUN, or a paragraph leaves more than MAX_OPEN_BRACKETS `[`
 * open.
 */
export function isTooDeeplyNested(text: string): boolean {
  let fence: Fence | null = null;
  let openBrackets = 0;
  let start = 0;
  while (start <= text.length) {
    const end = lineEnd(text, start);
    const prefix = scanPrefix(text, start, end);
    if (prefix.markers > 0) {
      // Every container a line sits in was opened by a marker on this line, or carried
      // over from an earlier line by a `>` (counted here) or by at least two columns of
      // indentation per list item: so markers + indentation/2 bounds the depth.
      const depth = prefix.markers + Math.floor(prefix.columns / 2);
      if (depth > (fence ? MAX_FENCED_NESTING : MAX_NESTING)) return true;
    }
    const inline = scanInline(text, prefix.end, end, openBrackets);
    if (inline.longestRun > MAX_DELIMITER_RUN || inline.mostOpen > MAX_OPEN_BRACKETS) return true;
    // A blank line ends a paragraph, and a link cannot span paragraphs.
    openBrackets = prefix.markers === 0 && prefix.end === end ? 0 : inline.open;
    fence = fence ? (closesFence(text, prefix.end, end, fence) ? null : fence) : opensFence(text, prefix.end, end);
    start = end + (text.charCodeAt(end) === CR && text.charCodeAt(end + 1) === LF ? 2 : 1);
  }
  return false;
}

interface Prefix {
  /** Block-container markers: `>`, `-`/`*`/`+` and `1.`/`1)` followed by a space. */
  markers: number;
  /** Columns of whitespace among them (a tab reaches the next multiple of 4). */
  columns: number;
  /** Index of the first character after the prefix. */
  end: number;
}

/** Reads a line's leading run of whitespace and container markers. */
function scanPrefix(text: string, start: number, end: number): Prefix {
  let markers = 0;
  let columns = 0;
  let column = 0;
  let i = start;
  while (i < end) {
    const c = text.charCodeAt(i);
    if (c === SPACE || c === TAB) {
      const width = c === TAB ? 4 - (column % 4) : 1;
      columns += width;
      column += width;
      i++;
    } else if (c === GT) {
      markers++;
      column++;
      i++;
    } else if ((c === DASH || c === STAR || c === PLUS) && isBlankOrEnd(text, i + 1, end)) {
      markers++;
      column++;
      i++;
    } else if (isDigit(c)) {
      // CommonMark ordered markers have at most nine digits.
      let j = i + 1;
      while (j < end && j - i < 9 && isDigit(text.charCodeAt(j))) j++;
      const delimiter = text.charCodeAt(j);
      if (j >= end || (delimiter !== DOT && delimiter !== PAREN) || !isBlankOrEnd(text, j + 1, end)) break;
      markers++;
      column += j + 1 - i;
      i = j + 1;
    } else {
      break;
    }
  }
  return { markers, columns, end: i };
}

interface Fence {
  char: number;
  length: number;
}

/** A line whose content starts with ``` or ~~~ (an info string after ``` has no backtick). */
function opensFence(text: string, start: number, end: number): Fence | null {
  const char = text.charCodeAt(start);
  if (char !== BACKTICK && char !== TILDE) return null;
  const length = runLength(text, start, end, char);
  if (length < 3) return null;
  if (char === BACKTICK && text.slice(start + length, end).includes("`")) return null;
  return { char, length };
}

/** At least as long a run of the fence's character, then only whitespace. */
function closesFence(text: string, start: number, end: number, fence: Fence): boolean {
  const length = runLength(text, start, end, fence.char);
  return length >= fence.length && text.slice(start + length, end).trim() === "";
}

interface Inline {
  /** Longest run of `*` or `_`. */
  longestRun: number;
  /** `[` still open at the end of the line, and the most open at any point. */
  open: number;
  mostOpen: number;
}

/** One pass over a line's content, counting `[` from the earlier lines of its paragraph. */
function scanInline(text: string, start: number, end: number, open: number): Inline {
  let longestRun = 0;
  let mostOpen = open;
  for (let i = start; i < end;) {
    const c = text.charCodeAt(i);
    if (c === STAR || c === UNDERSCORE) {
      const length = runLength(text, i, end, c);
      if (length > longestRun) longestRun = length;
      i += length;
      continue;
    }
    if (c === OPEN_BRACKET && ++open > mostOpen) mostOpen = open;
    else if (c === CLOSE_BRACKET && open > 0) open--;
    i++;
  }
  return { longestRun, open, mostOpen };
}
