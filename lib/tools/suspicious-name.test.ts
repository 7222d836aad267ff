import { describe, expect, it } from "vitest";
import { approvalFileNames, nameParts, nameWarnings, withUnseenVisible } from "./suspicious-name";

describe("nameWarnings", () => {
  it.each([
    ["a right-to-left override", "invoice\u202Egnp.sh", [["bidi", "U+202E"]], /U\+202E RIGHT-TO-LEFT OVERRIDE/],
    [
      "a right-to-left isolate",
      "a\u2067b\u2069.md",
      [
        ["bidi", "U+2067"],
        ["bidi", "U+2069"],
      ],
      /RIGHT-TO-LEFT ISOLATE/,
    ],
    ["a left-to-right embedding", "x\u202A.md", [["bidi", "U+202A"]], /LEFT-TO-RIGHT EMBEDDING/],
    ["a zero-width space", "read\u200Bme.md", [["invisible", "U+200B"]], /ZERO WIDTH SPACE, an invisible character/],
    ["a byte order mark", "\uFEFFnotes.md", [["invisible", "U+FEFF"]], /ZERO WIDTH NO-BREAK SPACE/],
    ["a Hangul filler", "a\u3164.md", [["invisible", "U+3164"]], /HANGUL FILLER/],
    ["a line break", "a\nb.md", [["control", "U+000A"]], /control character/],
    [
      "a Cyrillic a among Latin letters",
      "p\u0430ypal.md",
      [["look-alike", "U+0430"]],
      /Cyrillic letter "а" among Latin letters in "pаypal"/,
    ],
    ["a Greek omicron among Latin letters", "g\u03BFogle/x.md", [["look-alike", "U+03BF"]], /Greek letter/],
    ["a fullwidth letter", "\uFF50ay.md", [["look-alike", "U+FF50"]], /looks like "p"/],
    ["a division slash", "docs\u2215x.md", [["look-alike", "U+2215"]], /DIVISION SLASH looks like "\/"/],
  ])("flags %s", (_, name, expected, message) => {
    const warnings = nameWarnings(name);
    expect(warnings.map((w) => [w.kind, w.codepoint])).toEqual(expected);
    expect(warnings.map((w) => w.message).join(" ")).toMatch(message);
  });

  it.each([
    ["plain ASCII", "docs/plan-v2_final.md"],
    ["a Cyrillic name with a Latin extension", "docs/привет.md"],
    ["Greek words", "σημειώσεις/αρχείο.txt"],
    ["accented Latin", "café/résumé.md"],
    ["CJK", "文档/说明.md"],
    ["emoji", "notes 🎉.md"],
  ])("leaves %s alone", (_, name) => {
    expect(nameWarnings(name)).toEqual([]);
  });

  it("names each codepoint once", () => {
    expect(nameWarnings("a\u202Eb\u202Ec").map((w) => w.codepoint)).toEqual(["U+202E"]);
  });
});

describe("nameParts", () => {
  it("cuts a name into plain runs and flagged characters that join back to it", () => {
    const name = "p\u0430y\u202Egnp.sh";
    const parts = nameParts(name);
    expect(parts.map((p) => p.text).join("")).toBe(name);
    expect(parts.map((p) => [p.text, p.warning?.codepoint])).toEqual([
      ["p", undefined],
      ["\u0430", "U+0430"],
      ["y", undefined],
      ["\u202E", "U+202E"],
      ["gnp.sh", undefined],
    ]);
  });
});

describe("withUnseenVisible", () => {
  it.each([
    ["a right-to-left override", "+x = 1 \u202E// ok", "+x = 1 ⟨U+202E⟩// ok"],
    ["a zero-width joiner", "a\u200Db", "a⟨U+200D⟩b"],
    ["an escape character", "\u001B[2Jcleared", "⟨U+001B⟩[2Jcleared"],
    ["a tab (kept)", "+\tindented", "+\tindented"],
    ["a CRLF line end (kept)", "+windows line\r", "+windows line\r"],
    ["a carriage return mid-line", "+shown\rhidden", "+shown⟨U+000D⟩hidden"],
    ["a look-alike letter (visible: kept)", "p\u0430ypal", "p\u0430ypal"],
  ])("writes out %s", (_, line, shown) => {
    expect(withUnseenVisible(line)).toBe(shown);
  });
});

describe("approvalFileNames", () => {
  it("names the file of the diff and the path asked for, once each", () => {
    const diff = "--- a/docs/real.md\n+++ b/docs/real.md\n@@ -1 +1 @@\n-a\n+b\n";
    expect(approvalFileNames(JSON.stringify({ path: "alias.md" }), diff)).toEqual(["docs/real.md", "alias.md"]);
    expect(approvalFileNames(JSON.stringify({ path: "docs/real.md" }), diff)).toEqual(["docs/real.md"]);
    expect(approvalFileNames(JSON.stringify({ path: "new.md" }), "--- /dev/null\n+++ b/new.md\n")).toEqual(["new.md"]);
    expect(approvalFileNames("not json", undefined)).toEqual([]);
    expect(approvalFileNames(JSON.stringify({ query: "x" }), undefined)).toEqual([]);
  });
});
