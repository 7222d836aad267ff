import { describe, expect, it } from "vitest";
import { MAX_ATTACHMENT_NAME_CHARS, safeAttachmentName, uniqueAttachmentName } from "./name";

describe("safeAttachmentName", () => {
  it.each([
    ["notes.txt", "notes.txt"],
    ["../../etc/passwd", "passwd"],
    ["C:\\Users\\me\\report.pdf", "report.pdf"],
    ["/abs/path/to/a.png", "a.png"],
    ["..", "file"],
    [".", "file"],
    ["", "file"],
    ["   ", "file"],
    [".env", "file.env"],
    ["...hidden.txt", "hidden.txt"],
    ["trailing dots...", "trailing dots"],
    ["<script>alert(1)</script>.txt", "script_.txt"],
    ["<img src=x onerror=alert(1)>.png", "_img src=x onerror=alert(1)_.png"],
    ["a\u202Egpj.exe", "agpj.exe"],
    ["zero\u200Bwidth\uFEFF.md", "zerowidth.md"],
    ["line\nbreak\r\tname.txt", "linebreakname.txt"],
    ["many    spaces  .txt", "many spaces .txt"],
    ['what?*:"|.txt', "what_____.txt"],
    ["CON.txt", "CON_.txt"],
    ["nul", "nul_"],
    ["e\u0301te\u0301.txt", "\u00e9t\u00e9.txt"],
    ["\u0000\u0001.pdf", "file.pdf"],
  ])("%j becomes %j", (raw, safe) => {
    expect(safeAttachmentName(raw)).toBe(safe);
  });

  it("caps a long name and keeps its extension", () => {
    const name = safeAttachmentName(`${"x".repeat(5_000)}.pdf`);
    expect(name).toHaveLength(MAX_ATTACHMENT_NAME_CHARS);
    expect(name.endsWith("x.pdf")).toBe(true);
  });

  it("counts characters, not UTF-16 units, and never splits a surrogate pair", () => {
    const name = safeAttachmentName(`${"😀".repeat(300)}.txt`);
    expect([...name]).toHaveLength(MAX_ATTACHMENT_NAME_CHARS);
    expect(() => encodeURIComponent(name)).not.toThrow();
  });
});

describe("uniqueAttachmentName", () => {
  it.each([
    ["notes.txt", [], "notes.txt"],
    ["notes.txt", ["notes.txt"], "notes (2).txt"],
    ["notes.txt", ["NOTES.TXT", "notes (2).txt"], "notes (3).txt"],
    ["README", ["README"], "README (2)"],
    ["a.tar.gz", ["a.tar.gz"], "a.tar (2).gz"],
  ])("%s among %j is %s", (name, taken, unique) => {
    expect(uniqueAttachmentName(name, taken)).toBe(unique);
  });

  it("stays within the length cap when it numbers a name at the cap", () => {
    const long = safeAttachmentName(`${"y".repeat(500)}.txt`);
    const unique = uniqueAttachmentName(long, [long]);
    expect(unique).toHaveLength(MAX_ATTACHMENT_NAME_CHARS);
    expect(unique.endsWith(" (2).txt")).toBe(true);
  });
});
