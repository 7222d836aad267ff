import { describe, expect, it } from "vitest";
import { MAX_NESTING, isTooDeeplyNested } from "./nesting";

/** A list nested `depth` levels by indentation, each level two columns deeper. */
function indentedList(depth: number, indent = "  "): string {
  return Array.from({ length: depth }, (_, i) => `${indent.repeat(i)}- level ${i + 1}`).join("\n");
}

const README = `# Delegate

Self-hosted chat with an agent that delegates to **subagents**.

## Install

1. Clone the repository.
2. Run \`npm run app\`:
   - it installs dependencies,
   - builds the app,
     1. with Next,
        - then the server
          - and the sockets
            - six levels deep.
3. Open http://localhost:3000.

> **Note**
> - quoted lists work too
>   - nested once more
>
> > and a quote in a quote

| option | default | meaning |
|--------|---------|---------|
| \`PORT\` | 3000 | - where it listens |
| \`MODEL\` | demo | > the model |

\`\`\`yaml
services:
  app:
    environment:
      - PORT=3000
      - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - -
> > > > > > > > > > > > > > > > > > > > > > > > > > > > > > > > > > > > > > > > > >
\`\`\`

~~~
1. 1. 1. 1. 1. 1. 1. 1. 1. 1. 1. 1. 1. 1. 1. 1. 1. 1. 1. 1. 1. 1. 1. 1. 1. 1. 1. 1.
~~~

* * *

Emphasis *works*, __strong__ too, and [links](https://example.com) with ![images](https://example.com/x.png).
`;

describe("isTooDeeplyNested", () => {
  it.each([
    ["a deep bullet list", "- ".repeat(1000) + "end"],
    ["a line of 1000 dashes (a thematic break, flagged all the same)", "- ".repeat(1000)],
    ["a deep blockquote", "> ".repeat(1000) + "x"],
    ["a deep blockquote without spaces", ">".repeat(1000) + "x"],
    ["a deep ordered list", "1. ".repeat(1000) + "x"],
    ["ordered lists with ) markers", "9) ".repeat(1000) + "x"],
    ["lists and quotes mixed", "- > ".repeat(500) + "x"],
    ["an indented list 200 deep", indentedList(200)],
    ["an indented list 200 deep, four columns a level", indentedList(200, "    ")],
    ["an indented list 200 deep, tab-indented", indentedList(200, "\t")],
    ["an indented list with lone CR line endings", indentedList(200).replaceAll("\n", "\r")],
    ["an indented list with CRLF line endings", indentedList(200).replaceAll("\n", "\r\n")],
    ["a deep list after ordinary text", `${README}\n\n${"- ".repeat(1000)}end`],
    ["a deep list behind a fence markdown does not honour", "<div>\n```\n\n" + "- ".repeat(1000) + "end"],
    ["a long emphasis run", "*".repeat(4200) + "a" + "*".repeat(4200)],
    ["nested images", "![".repeat(2000) + "a" + "](x)".repeat(2000)],
    ["nested links over many lines", "[\n".repeat(2000) + "a" + "](https://x)".repeat(2000)],
  ])("flags %s", (_name, text) => {
    expect(isTooDeeplyNested(text)).toBe(true);
  });

  it.each([
    ["an empty text", ""],
    ["plain prose", "Hello, world. This is a sentence with 3.5 numbers - and a dash."],
    ["a README with lists nested 3–6 deep, quotes, tables and code fences", README],
    ["lists nested 6 deep with four columns a level", indentedList(6, "    ")],
    ["lists nested 6 deep with tabs", indentedList(6, "\t")],
    ["a deeply indented list inside a code fence", "```yaml\n" + indentedList(100) + "\n```\nafter"],
    ["a markdown table", "| a | b |\n|---|---|\n" + "| - x | > y |\n".repeat(500)],
    ["a long thematic break", "*".repeat(80)],
    ["many links one after another", "[a](https://x) ".repeat(5000)],
    ["brackets closed as they go", "[x] ".repeat(5000)],
    ["unmatched brackets spread over paragraphs", "[ open\n\n".repeat(1000)],
    ["a lone surrogate", "before \ud800 after"],
  ])("does not flag %s", (_name, text) => {
    expect(isTooDeeplyNested(text)).toBe(false);
  });

  it(`allows exactly ${MAX_NESTING} levels and flags one more`, () => {
    expect(isTooDeeplyNested(indentedList(MAX_NESTING))).toBe(false);
    expect(isTooDeeplyNested(indentedList(MAX_NESTING + 1))).toBe(true);
  });

  it("scans a megabyte in one linear pass", () => {
    // Each of these would be quadratic for a scanner that re-reads lines or nesting.
    const ordinary = README.repeat(Math.ceil(1_000_000 / README.length));
    expect(ordinary.length).toBeGreaterThan(1_000_000);
    expect(isTooDeeplyNested(ordinary)).toBe(false);
    expect(isTooDeeplyNested("a".repeat(1_000_000))).toBe(false);
    expect(isTooDeeplyNested("[a] ".repeat(250_000))).toBe(false);
    expect(isTooDeeplyNested("- ".repeat(500_000))).toBe(true);
    // State carries from line to line, yet lists and paragraphs that end let go of it.
    expect(isTooDeeplyNested(`${indentedList(MAX_NESTING)}\n\n`.repeat(1000))).toBe(false);
  });
});
