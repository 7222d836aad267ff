import { fromHtml } from "hast-util-from-html";
import { toText } from "hast-util-to-text";
import { ToolError } from "./types";

/**
 * Readable text from an HTML page: parsed as a browser would (hast-util-from-html, on
 * parse5), then laid out like `innerText` (hast-util-to-text): block elements become line
 * breaks, paragraphs blank lines, table cells tabs, entities are decoded. Headings and
 * list items keep a Markdown marker so the model still sees the page's structure.
 * Good enough for an agent to read an article; not a browser.
 */

type Root = ReturnType<typeof fromHtml>;
type Element = Extract<Root["children"][number], { type: "element" }>;

/** Never content. hast-util-to-text already skips head, script, style, noscript and template. */
const DROPPED = new Set(["script", "style", "noscript", "template", "svg", "iframe", "object", "canvas"]);
const HEADING = /^h([1-6])$/;
/**
 * HTML parsed at most: a parsed tree costs about 100 bytes of heap per byte of dense HTML
 * (2.2 MB took 220 MB and 1 s), and the agent reads at most 100,000 characters of text
 * anyway. 512 KB of markup keeps one fetch near 50 MB; the parser closes what the cut opened.
 */
export const MAX_HTML_CHARS = 512 * 1024;

export function htmlToText(html: string): { title?: string; text: string } {
  let title: string | undefined;
  let text: string;
  try {
    const tree = fromHtml(html.length > MAX_HTML_CHARS ? html.slice(0, MAX_HTML_CHARS) : html);
    // Depth first in document order (the first <title> wins), with an explicit stack.
    const stack: Array<Root | Element> = [tree];
    for (let node = stack.pop(); node; node = stack.pop()) {
      node.children = node.children.filter((child) => {
        if (child.type !== "element") return child.type === "text";
        if (child.tagName === "title" && title === undefined) title = toText(child).replace(/\s+/g, " ").trim();
        if (DROPPED.has(child.tagName)) return false;
        const level = HEADING.exec(child.tagName)?.[1];
        if (level) child.children.unshift({ type: "text", value: `${"#".repeat(Number(level))} ` });
        if (child.tagName === "li") child.children.unshift({ type: "text", value: "- " });
        return true;
      });
      for (let i = node.children.length - 1; i >= 0; i--) {
        const child = node.children[i]!;
        if (child.type === "element") stack.push(child);
      }
    }
    text = toText(tree);
  } catch (error) {
    // The parser's tree conversion and the layout recurse once per level of nesting.
    if (error instanceof RangeError) throw new ToolError("The page nests its HTML too deeply to be read as text.");
    throw error;
  }
  // innerText keeps no-break spaces; a reader wants plain ones.
  return { title: title || undefined, text: text.replace(/\u00a0/g, " ").trim() };
}
