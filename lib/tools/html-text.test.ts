import { describe, expect, it } from "vitest";
import { htmlToText, MAX_HTML_CHARS } from "./html-text";
import { ToolError } from "./types";

describe("htmlToText", () => {
  it("keeps the readable text and drops scripts, styles and comments", () => {
    const { title, text } = htmlToText(
      `<!doctype html><html><head><title>Tide &amp; Time</title><style>body{color:red}</style></head>
       <body><script>alert("x")</script><!-- hidden --><h1>High water</h1><p>At <b>06:12</b>&nbsp;UTC.</p>
       <ul><li>One</li><li>Two</li></ul><noscript>enable js</noscript></body></html>`,
    );
    expect(title).toBe("Tide & Time");
    expect(text).toBe("# High water\n\nAt 06:12 UTC.\n\n- One\n- Two");
    expect(text).not.toMatch(/alert|color:red|hidden|enable js/);
  });

  it("leaves escaped markup as text rather than tags", () => {
    expect(htmlToText("<p>&lt;script&gt;x&lt;/script&gt;</p>").text).toBe("<script>x</script>");
  });

  it("drops embedded and non-content elements, an SVG's title included", () => {
    const { title, text } = htmlToText(
      "<body><svg><title>icon</title><text>svg text</text></svg><iframe>frame</iframe><object>fallback</object><canvas>cv</canvas><template>tpl</template><p>kept</p></body>",
    );
    expect(title).toBeUndefined();
    expect(text).toBe("kept");
  });

  it("refuses a page nested too deeply to parse, rather than crashing", () => {
    expect(htmlToText(`${"<div>".repeat(500)}deep`).text).toBe("deep");
    expect(() => htmlToText(`${"<div>".repeat(20_000)}deep`)).toThrow(ToolError);
  });

  it("parses only the first MAX_HTML_CHARS of a huge page (the text is cut far below that anyway)", () => {
    const paragraph = "<p>words words words</p>";
    const page = `<title>Big</title>${paragraph.repeat(Math.ceil((2 * MAX_HTML_CHARS) / paragraph.length))}<p>THE END</p>`;
    const { title, text } = htmlToText(page);
    expect(title).toBe("Big");
    expect(text).toContain("words words words");
    expect(text).not.toContain("THE END");
  });
});

// These cases tested the old hand-written decodeEntities helper; the parser decodes now.
describe("entities", () => {
  it.each([
    ["a &amp; b", "a & b"],
    ["&#65;&#x42;", "AB"],
    ["&mdash;&hellip;", "—…"],
    ["&unknown;", "&unknown;"],
    // The old helper left an out-of-range reference as written; HTML parsing makes it U+FFFD.
    ["&#x110000;", "\uFFFD"],
  ])("%j → %j", (input, expected) => {
    expect(htmlToText(`<p>${input}</p>`).text).toBe(expected);
  });
});
