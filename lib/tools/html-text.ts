/**
 * Readable text from an HTML page without a DOM library: drops scripts, styles and other
 * non-content elements, turns block elements into line breaks, strips the remaining
 * tags and decodes entities. Good enough for an agent to read an article; not a browser.
 */

const DROPPED = /<(script|style|noscript|template|svg|iframe|object|canvas|head)\b[^>]*>[\s\S]*?<\/\1\s*>/gi;
const COMMENTS = /<!--[\s\S]*?-->/g;
const TITLE = /<title\b[^>]*>([\s\S]*?)<\/title\s*>/i;
const LIST_ITEM = /<li\b[^>]*>/gi;
const HEADING = /<h([1-6])\b[^>]*>/gi;
const BREAKS = /<(br|hr)\b[^>]*\/?>/gi;
const BLOCKS =
  /<\/?(p|div|section|article|main|header|footer|nav|aside|ul|ol|table|thead|tbody|tr|h[1-6]|pre|blockquote|figure|figcaption|dl|dt|dd|form|fieldset)\b[^>]*>/gi;
const CELLS = /<\/(td|th)\s*>/gi;
const TAGS = /<\/?[a-zA-Z][^>]*>/g;
const DECLARATIONS = /<![^>]*>/g;
const ENTITY = /&(#x[0-9a-fA-F]+|#\d+|[a-zA-Z][a-zA-Z0-9]*);/g;
const SPACES = /[ \t\f\v\u00a0]+/g;
const BLANK_LINES = /\n\s*\n\s*(\n\s*)+/g;

const NAMED: Record<string, string> = {
  amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " ", copy: "©", reg: "®", trade: "™",
  hellip: "…", mdash: "—", ndash: "–", lsquo: "‘", rsquo: "’", ldquo: "“", rdquo: "”", laquo: "«",
  raquo: "»", bull: "•", middot: "·", deg: "°", euro: "€", pound: "£", yen: "¥", cent: "¢",
  times: "×", divide: "÷", plusmn: "±", para: "¶", sect: "§", shy: "", zwj: "", zwnj: "",
};

export function decodeEntities(text: string): string {
  return text.replace(ENTITY, (whole, name: string) => {
    if (name.startsWith("#")) {
      const code = name[1] === "x" || name[1] === "X" ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return Number.isInteger(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED[name] ?? NAMED[name.toLowerCase()] ?? whole;
  });
}

export function htmlToText(html: string): { title?: string; text: string } {
  const titleMatch = html.match(TITLE);
  const title = titleMatch ? decodeEntities(titleMatch[1]!.replace(TAGS, "")).replace(/\s+/g, " ").trim() : undefined;
  const text = decodeEntities(
    html
      .replace(COMMENTS, "")
      .replace(DROPPED, "")
      .replace(/\s+/g, " ")
      .replace(HEADING, (_m, level: string) => `\n\n${"#".repeat(Number(level))} `)
      .replace(LIST_ITEM, "\n- ")
      .replace(BREAKS, "\n")
      .replace(CELLS, " | ")
      .replace(BLOCKS, "\n\n")
      .replace(TAGS, "")
      .replace(DECLARATIONS, ""),
  )
    .replace(SPACES, " ")
    .split("\n")
    .map((line) => line.trim())
    .join("\n")
    .replace(BLANK_LINES, "\n\n")
    .trim();
  return { title: title || undefined, text };
}
