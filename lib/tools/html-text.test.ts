import { describe, expect, it } from "vitest";
import { decodeEntities, htmlToText } from "./html-text";

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
});

describe("decodeEntities", () => {
  it.each([
    ["a &amp; b", "a & b"],
    ["&#65;&#x42;", "AB"],
    ["&mdash;&hellip;", "—…"],
    ["&unknown;", "&unknown;"],
    ["&#x110000;", "&#x110000;"],
  ])("%j → %j", (input, expected) => {
    expect(decodeEntities(input)).toBe(expected);
  });
});
