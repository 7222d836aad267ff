import fc from "fast-check";
import { renderToString } from "react-dom/server";
import ReactMarkdown from "react-markdown";
import rehypeHighlight from "rehype-highlight";
import remarkGfm from "remark-gfm";
import { describe, expect, it } from "vitest";
import { splitBlocks } from "./blocks";
import { Markdown } from "./markdown";
import { safeUrl } from "./safe-url";

/**
 * Block-by-block rendering must be indistinguishable from rendering the whole text at
 * once, for every prefix a stream can stop at. The reference is react-markdown on the
 * whole text with the same plugins; the component's own overrides (code header, links,
 * images, tables) apply to both sides alike, so the comparison goes through `<Markdown>`
 * and a plain whole-text render of the same text with the overrides switched off.
 */
const rehypePlugins = [[rehypeHighlight, { detect: false }]] as NonNullable<Parameters<typeof ReactMarkdown>[0]["rehypePlugins"]>;

/** The whole text parsed in one go: the pre-incremental behaviour. */
function whole(text: string): string {
  return renderToString(
    <ReactMarkdown remarkPlugins={[remarkGfm]} rehypePlugins={rehypePlugins} urlTransform={safeUrl}>
      {text}
    </ReactMarkdown>,
  );
}

/** Each block parsed alone, joined by the newline `<Markdown>` puts between them. */
function blockwise(text: string): string {
  return splitBlocks(text).map(whole).join("\n");
}

const PIECES = [
  "# Title",
  "Setext\n===",
  "A paragraph with **bold**, `code` and a [link](https://example.com).",
  "A paragraph\nthat goes on\non three lines.",
  "- one\n- two\n- three",
  "- loose\n\n- list\n\n  with a second paragraph",
  "1. first\n2. second\n\n3. third after a blank",
  "* star\n  * nested\n    * deeper",
  "- item\n\n  ```ts\n  const a = 1;\n\n  const b = 2;\n  ```",
  "- item\n  ```\n  fenced in a list\n\n  still code\n  ```",
  "```ts\nconst x = 1;\n\n\nfunction f() {\n  return x;\n}\n```",
  "~~~python\ndef f():\n\n    return 1\n~~~",
  "````\n```\nnot a close\n\ntext\n```\n````",
  " ```\nindented fence\n\ncolumn zero in it\n ```",
  "```\nunclosed fence\n\nstill code",
  "    indented code\n\n    more indented code",
  "| a | b |\n|---|:-:|\n| 1 | 2 |\n| 3 | 4 |",
  "> quoted\n> lines\n\n> another quote",
  "> ```\n> code in a quote\n\nafter",
  "---",
  "***",
  "* * *",
  "<div>\n\nhtml block\n\n</div>",
  "<!--\n\ncomment\n\n-->",
  "[ref]: https://example.com\n\nUses [ref].",
  "Uses [later] first.",
  "[later]: https://example.org",
  "A footnote[^1].\n\n[^1]: The note.",
  "Text with a lone \r\nCRLF line\r\n\r\nand a paragraph",
  "Trailing spaces  \nhard break",
  "\t tab-started line",
  "  two-space line",
  "10) ten\n11) eleven",
  "- [ ] task\n- [x] done",
  "www.example.com autolink and ~~strike~~",
  "",
];

const documents = fc
  .array(fc.constantFrom(...PIECES), { minLength: 1, maxLength: 8 })
  .chain((pieces) =>
    fc.tuple(
      fc.constant(pieces),
      fc.array(fc.constantFrom("\n", "\n\n", "\n\n\n", "\n \n", "\r\n\r\n"), { minLength: pieces.length, maxLength: pieces.length }),
    ),
  );

function join([pieces, separators]: [string[], string[]]): string {
  return pieces.map((p, i) => p + (i < pieces.length - 1 ? separators[i] : "")).join("");
}

describe("splitBlocks", () => {
  it.each([
    ["paragraphs", "a\n\nb\n\nc", ["a", "b", "c"]],
    ["a list with blank lines stays whole", "- a\n\n- b\n\nafter", ["- a\n\n- b", "after"]],
    ["a fence with blank lines stays whole", "```\na\n\nb\n```\n\nafter", ["```\na\n\nb\n```", "after"]],
    ["an unclosed fence takes the rest", "intro\n\n```\na\n\nb", ["intro", "```\na\n\nb"]],
    ["a table is one block", "| a |\n|---|\n| 1 |\n\nafter", ["| a |\n|---|\n| 1 |", "after"]],
    ["indented continuation is no split", "- a\n\n  b\n\nc", ["- a\n\n  b", "c"]],
    ["link definitions turn splitting off", "[a]\n\n[a]: /x", ["[a]\n\n[a]: /x"]],
    ["footnotes turn splitting off", "a[^1]\n\n[^1]: b", ["a[^1]\n\n[^1]: b"]],
    ["an HTML block ends splitting", "a\n\nb\n\n<pre>\n\nc\n\n</pre>\n\nd", ["a", "b\n\n<pre>\n\nc\n\n</pre>\n\nd"]],
    ["leading blank lines stay with the first block", "\n\na\n\nb", ["\n\na", "b"]],
    [
      "a fence indented 1–3 spaces then column 0 stops splitting",
      "- a\n  ```\n\nfoo\n\n```\nx\n\nbar\n```",
      ["- a\n  ```\n\nfoo\n\n```\nx\n\nbar\n```"],
    ],
  ])("%s", (_name, text, blocks) => {
    expect(splitBlocks(text)).toEqual(blocks);
  });

  // A fixed number of renderings, pure CPU: the bound is for a machine busy with other work.
  it("block-by-block rendering equals the whole-text rendering at every prefix of many documents", { timeout: 180_000 }, () => {
    fc.assert(
      fc.property(documents, fc.integer({ min: 0, max: 1000 }), (doc, cut) => {
        const text = join(doc);
        const prefix = text.slice(0, Math.floor((cut / 1000) * text.length));
        expect(blockwise(prefix)).toBe(whole(prefix));
        expect(blockwise(text)).toBe(whole(text));
      }),
      { numRuns: 150 },
    );
  });

  it("settled blocks keep their text while the stream appends to the last one", () => {
    const text = join([PIECES.slice(0, 20), Array(20).fill("\n\n")]);
    let previous: string[] = [];
    for (let n = 1; n <= text.length; n += 7) {
      const blocks = splitBlocks(text.slice(0, n));
      // Every block but the last of the previous split is unchanged now.
      expect(blocks.slice(0, Math.max(0, previous.length - 1))).toEqual(previous.slice(0, -1));
      previous = blocks;
    }
  });
});

describe("Markdown block by block", () => {
  it("renders a finished message exactly as one whole-text render with the same components", () => {
    const splittable = PIECES.filter((p) => !/<|\]:|\[\^|unclosed|^ `/.test(p));
    const text = join([splittable, splittable.map(() => "\n\n")]);
    const html = renderToString(<Markdown text={text} />);
    expect(splitBlocks(text).length).toBeGreaterThan(10);
    // Same structure as the reference (the component adds a code header and a table wrapper).
    const stripped = html
      .replace(/^<div class="markdown {2}">|<\/div>$/g, "")
      .replace(
        /<div class="code-block[^"]*"><div class="[^"]*"><span class="font-mono">[^<]*<\/span><button[\s\S]*?<\/button><\/div><pre class="!rounded-none !border-0">([\s\S]*?)<\/pre><\/div>/g,
        "<pre>$1</pre>",
      )
      .replace(/<div class="table-wrap">(<table>[\s\S]*?<\/table>)<\/div>/g, "$1")
      .replace(/ target="_blank" rel="noopener noreferrer"/g, "");
    expect(stripped).toBe(whole(text));
  });

  it("highlights only settled code blocks while streaming, and all of them once done", () => {
    const text = "```ts\nconst a = 1;\n```\n\nText\n\n```ts\nconst b = 2;";
    const streaming = renderToString(<Markdown text={text} streaming />);
    expect(streaming.match(/hljs-keyword/g)).toHaveLength(1);
    const done = renderToString(<Markdown text={text + "\n```"} />);
    expect(done.match(/hljs-keyword/g)).toHaveLength(2);
  });
});
