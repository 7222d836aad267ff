import { describe, expect, it } from "vitest";
import { escapeRegex, highlightsOf, MAX_TERM_CHARS, normalWord, parseQuery, snippetOf, snippetParts, termsOf } from "./terms";

describe("normalWord", () => {
  it.each([
    ["Café", "cafe"],
    ["cafe\u0301", "cafe"],
    ["ÉCOLE", "ecole"],
    ["Straße", "straße"],
    ["ﬁle", "file"],
    ["Ｆｕｌｌ", "full"],
    ["naïve", "naive"],
    ["x".repeat(100), "x".repeat(MAX_TERM_CHARS)],
  ])("%s → %s", (word, normal) => expect(normalWord(word)).toBe(normal));
});

describe("termsOf", () => {
  it("splits at anything but letters and digits, once per term, in first-seen order", () => {
    expect(termsOf("Hello, hello! src/app.ts v2 — naïve-ish", "HELLO again")).toEqual([
      "hello",
      "src",
      "app",
      "ts",
      "v2",
      "naive",
      "ish",
      "again",
    ]);
  });
  it("finds no terms in punctuation, emoji or markup alone", () => {
    expect(termsOf("<>&;!? 🙂 $.* ---")).toEqual([]);
  });
});

describe("parseQuery", () => {
  it.each([
    ["", { words: [], prefix: null }],
    ["   ", { words: [], prefix: null }],
    ["tid", { words: [], prefix: "tid" }],
    ["tide ", { words: ["tide"], prefix: null }],
    ["Tide Préd", { words: ["tide"], prefix: "pred" }],
    ["tide tide", { words: [], prefix: "tide" }],
    [".*", { words: [], prefix: null }],
    ["a.b", { words: ["a"], prefix: "b" }],
    ["(a+)+$", { words: ["a"], prefix: null }],
  ])("%j", (query, parsed) => expect(parseQuery(query)).toEqual(parsed));
  it("keeps at most eight parts", () => {
    const q = parseQuery("a b c d e f g h i j k");
    expect(q.words.length + (q.prefix ? 1 : 0)).toBe(8);
  });
});

describe("snippets", () => {
  it("highlights whole words and the prefix in the original text, accents and case kept", () => {
    const text = "The Crème brûlée at Café Crémant";
    const ranges = highlightsOf(text, parseQuery("creme cre"));
    expect(ranges.map(([s, e]) => text.slice(s, e))).toEqual(["Crème", "Crémant"]);
  });
  it("cuts around the first match, marks the cuts, and keeps the ranges on the excerpt", () => {
    const text = `${"lorem ".repeat(60)}the anemometer reads high ${"ipsum ".repeat(60)}`;
    const snippet = snippetOf(text, parseQuery("anemometer "), 80);
    expect(snippet.text.startsWith("…")).toBe(true);
    expect(snippet.text.endsWith("…")).toBe(true);
    expect(snippet.highlights.map(([s, e]) => snippet.text.slice(s, e))).toEqual(["anemometer"]);
    expect(
      snippetParts(snippet)
        .filter((p) => p.mark)
        .map((p) => p.text),
    ).toEqual(["anemometer"]);
    expect(
      snippetParts(snippet)
        .map((p) => p.text)
        .join(""),
    ).toBe(snippet.text);
  });
  it("puts lines on one line and starts at the beginning without a match", () => {
    expect(snippetOf("a\n\nb   c", parseQuery("zzz"))).toEqual({ text: "a b c", highlights: [] });
  });
  it("ignores ranges outside the text or out of order when rendering", () => {
    expect(
      snippetParts({
        text: "abc",
        highlights: [
          [1, 2],
          [0, 1],
          [2, 9],
        ],
      }),
    ).toEqual([
      { text: "a", mark: false },
      { text: "b", mark: true },
      { text: "c", mark: false },
    ]);
  });
});

describe("escapeRegex", () => {
  it("makes every metacharacter literal", () => {
    const nasty = "^a.b*c+d?e(f)g[h]i{j}k|l\\m$n/o-p";
    expect(new RegExp(`^${escapeRegex(nasty)}$`).test(nasty)).toBe(true);
    expect(new RegExp(escapeRegex(".*")).test("abc")).toBe(false);
  });
});
