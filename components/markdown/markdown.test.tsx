import { renderToString } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { Markdown } from "./markdown";

const render = (text: string, streaming = false) => renderToString(<Markdown text={text} streaming={streaming} />);

/** How React writes text into HTML. */
function escaped(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#x27;" })[c]!);
}

const NESTED_NOTE = "Shown as plain text: too deeply nested to format.";

describe("Markdown", () => {
  it.each([
    ["a deep list", "- ".repeat(1000) + "end"],
    ["a deep blockquote", "> ".repeat(1000) + "x"],
    ["a deep ordered list", "1. ".repeat(1000) + "x"],
    ["mixed lists and quotes", "- > ".repeat(500) + "x"],
    ["an indented list 200 deep", Array.from({ length: 200 }, (_, i) => `${"  ".repeat(i)}- item ${i}`).join("\n")],
  ])("shows %s as plain text with a note instead of overflowing the stack", (_name, text) => {
    for (const streaming of [false, true]) {
      const html = render(text, streaming);
      expect(html).toContain(NESTED_NOTE);
      expect(html).toContain(`<pre data-testid="markdown-plain" class="whitespace-pre-wrap">${escaped(text)}</pre>`);
      expect(html).not.toMatch(/<(ul|ol|blockquote|li)\b/);
    }
  });

  it("shows text past the size limit as plain text", () => {
    const huge = "**bold** ".repeat(25_000);
    const html = render(huge);
    expect(html).toContain("Shown as plain text: too long to format.");
    expect(html).toContain(escaped(huge));
    expect(html).not.toContain("<strong>");
  });

  it("still formats ordinary markdown: nested lists, quotes, tables and code", () => {
    const html = render(
      [
        "# Title",
        "",
        "- one",
        "  - two",
        "    - three",
        "",
        "> quoted **bold**",
        "> > twice",
        "",
        "1. first",
        "2. second",
        "",
        "| a | b |",
        "|---|---|",
        "| 1 | 2 |",
        "",
        "```ts",
        "const x = 1;",
        "```",
      ].join("\n"),
    );
    expect(html).not.toContain("Shown as plain text");
    expect(html.match(/<ul>/g)).toHaveLength(3);
    expect(html.match(/<blockquote>/g)).toHaveLength(2);
    expect(html).toContain("<ol>");
    expect(html).toContain("<strong>bold</strong>");
    expect(html).toContain("<table>");
    expect(html).toContain('<code class="hljs language-ts">');
  });

  it("renders a lone surrogate as text", () => {
    const html = render("before \ud800 after");
    expect(html).toContain("<p>before \ud800 after</p>");
  });
});
