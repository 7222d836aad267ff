/**
 * Untrusted text (a person's prompt, a model's answer, a tool's words) as Markdown that
 * renders as the text it is, in any renderer, including those that pass raw HTML through
 * (the transcript's `<details>` folds need one).
 *
 * The model's own Markdown stays: headings, lists, emphasis, tables, quotes, code spans and
 * fenced code. What cannot survive is anything that makes markup or fetches: outside code,
 * `<`, `>` and `&` become entities (no tag, no autolink, no entity trick) and every `[`
 * is escaped (no link, image, reference definition or footnote). Safety does not rest on
 * parsing the text the way every renderer would: outside the fences re-emitted here, the
 * output holds no raw `<` (but the `<code>` tags written here), `&` or `[`, so however a
 * renderer reads the rest, it can only produce text and emphasis.
 *
 * Fenced code is the exception, and it is made unambiguous instead: every fence the text
 * opens (at up to three spaces of indent, as CommonMark sees one) is re-emitted at column
 * 0, closed, and long enough that nothing inside ends it. An unclosed fence would otherwise
 * run on past the text and be closed by the transcript's next fence, turning what follows
 * (the next tool's output) into live Markdown. A fence inside a list item or quote is
 * escaped like text instead: it ends with its container, before the transcript goes on.
 */

const ENTITIES: Record<string, string> = { "<": "&lt;", ">": "&gt;", "&": "&amp;" };
const ASCII_PUNCTUATION = /[!-/:-@[-`{-~]/;
const FENCE_OPEN = /^( {0,3})(`{3,}|~{3,})(.*)$/;

/** A multi-line untrusted text, its Markdown kept, its HTML and links made text. */
export function inertMarkdown(text: string): string {
  const lines = normaliseLineEnds(text).split("\n");
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE_OPEN.exec(lines[i]!);
    const [, indent = "", marker = "", info = ""] = open ?? [];
    if (!open || (marker.startsWith("`") && info.includes("`"))) {
      out.push(inertLine(lines[i]!, true));
      continue;
    }
    const body: string[] = [];
    while (i + 1 < lines.length && !closesFence(lines[i + 1]!, marker)) body.push(stripIndent(lines[++i]!, indent.length));
    i++; // the closing line, or past the end when the text left the fence open
    out.push(fence(body.join("\n"), infoLanguage(info)));
  }
  return out.join("\n");
}

/** One line of untrusted text placed mid-line (after a label): no line breaks, nothing live. */
export function inertInline(text: string): string {
  return inertLine(text.replace(/\s*[\r\n]+\s*/g, " ").trim(), false);
}

/** A fence longer than any run of backticks inside, so the text cannot close it. */
export function fence(text: string, lang = ""): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const ticks = "`".repeat(longest + 1);
  return `${ticks}${lang}\n${text}\n${ticks}`;
}

export function escapeHtml(text: string): string {
  return text.replace(/[<>&]/g, (c) => ENTITIES[c]!);
}

/** CommonMark ends lines at CR as well as LF: a lone CR must not hide a fence line from the scan. */
function normaliseLineEnds(text: string): string {
  return text.replace(/\r\n?/g, "\n");
}

function closesFence(line: string, marker: string): boolean {
  const close = /^ {0,3}(`{3,}|~{3,})[ \t]*$/.exec(line);
  return !!close && close[1]![0] === marker[0] && close[1]!.length >= marker.length;
}

function stripIndent(line: string, width: number): string {
  return line.replace(new RegExp(`^ {0,${width}}`), "");
}

/** The info string's first word, only if it looks like a language name (it lands in a class). */
function infoLanguage(info: string): string {
  const word = info.trim().split(/\s+/)[0] ?? "";
  return /^[\w.+#-]{1,30}$/.test(word) ? word : "";
}

function inertLine(line: string, atLineStart: boolean): string {
  // A quote's `>` markers at the start stay Markdown: alone, `>` opens nothing.
  const quote = atLineStart ? (/^(?: {0,3}> ?)+/.exec(line)?.[0] ?? "") : "";
  let out = quote;
  let i = quote.length;
  while (i < line.length) {
    const c = line[i]!;
    if (c === "\\" && i + 1 < line.length && ASCII_PUNCTUATION.test(line[i + 1]!)) {
      // An escape stays one (`\[` is already inert); an escaped `<` is written as its entity.
      const escaped = line[i + 1]!;
      out += ENTITIES[escaped] ?? `\\${escaped}`;
      i += 2;
    } else if (c === "`") {
      const run = /^`+/.exec(line.slice(i))![0];
      const close = closingRun(line, i + run.length, run.length);
      if (close < 0) {
        out += "\\`".repeat(run.length);
        i += run.length;
      } else {
        out += codeSpan(line.slice(i + run.length, close), run);
        i = close + run.length;
      }
    } else {
      out += ENTITIES[c] ?? (c === "[" ? "\\[" : c);
      i++;
    }
  }
  return out;
}

/** Where the next backtick run of exactly `length` starts (a code span's end), or -1. */
function closingRun(line: string, from: number, length: number): number {
  const runs = /`+/g;
  runs.lastIndex = from;
  for (let m = runs.exec(line); m; m = runs.exec(line)) if (m[0].length === length) return m.index;
  return -1;
}

/**
 * A code span whose content holds nothing that could become markup stays Markdown, so it
 * reads the same wherever it is shown. One that does (`Vec<u8>`, a tag) cannot: inside a
 * code span nothing can be escaped, and a renderer that splits the line elsewhere (a table
 * cell at a `|`) would read the content as live text. It becomes a `<code>` element
 * whose content is escaped character by character, correct however it is parsed.
 */
function codeSpan(content: string, run: string): string {
  if (!/[<>&[]/.test(content)) return `${run}${content}${run}`;
  const trimmed = /^ .*[^ ].* $/.test(content) ? content.slice(1, -1) : content;
  const escaped = [...trimmed].map((c) => ENTITIES[c] ?? (ASCII_PUNCTUATION.test(c) ? `\\${c}` : c)).join("");
  return `<code>${escaped}</code>`;
}
