import { describe, expect, it } from "vitest";
import { extensionLie, sniff, unsupportedSentence } from "./sniff";

const bytes = (...parts: (string | number[])[]) =>
  Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(p, "latin1") : Buffer.from(p))));

describe("sniff", () => {
  it.each([
    ["a PDF", bytes("%PDF-1.7\n%âãÏÓ\n1 0 obj"), "pdf", "application/pdf"],
    ["a PNG", bytes([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]), "image", "image/png"],
    ["a JPEG", bytes([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]), "image", "image/jpeg"],
    ["a GIF89a", bytes("GIF89a", [1, 0, 1, 0]), "image", "image/gif"],
    ["a GIF87a", bytes("GIF87a", [1, 0, 1, 0]), "image", "image/gif"],
    ["a WebP", bytes("RIFF", [0x24, 0, 0, 0], "WEBPVP8 "), "image", "image/webp"],
    ["ASCII text", Buffer.from("hello\nworld\n"), "text", "text/plain"],
    ["UTF-8 text with a BOM", Buffer.from("\ufeffgrüße, 日本語"), "text", "text/plain"],
    ["text mentioning %PDF- later", Buffer.from("see %PDF-1.4 below"), "text", "text/plain"],
    ["text with tabs and control characters", Buffer.from("a\tb\u0007c"), "text", "text/plain"],
  ])("reads %s", (_, content, kind, type) => {
    expect(sniff(content)).toMatchObject({ kind, type });
  });

  it.each([
    ["a NUL byte", Buffer.from("text\0more")],
    ["invalid UTF-8", bytes("caf", [0xe9])],
    ["a truncated UTF-8 sequence", bytes("ok", [0xe6, 0x97])],
    ["UTF-16 text", Buffer.from("\ufeffhello", "utf16le")],
    ["a ZIP file", bytes("PK", [3, 4, 20, 0, 0, 0])],
    ["an ELF binary", bytes([0x7f], "ELF", [2, 1, 1, 0])],
    ["RIFF that is not WebP (a WAV)", bytes("RIFF", [0x24, 0, 0, 0], "WAVEfmt ")],
  ])("refuses %s", (_, content) => {
    expect(sniff(content)).toBeUndefined();
  });

  it("says what is accepted when it refuses", () => {
    expect(unsupportedSentence("x.zip")).toMatch(/"x\.zip" is neither text, a PDF nor an image \(PNG, JPEG, GIF, WebP\)/);
  });
});

describe("extensionLie", () => {
  const pdf = sniff(bytes("%PDF-1.4"))!;
  const png = sniff(bytes([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))!;
  const webp = sniff(bytes("RIFF", [0, 0, 0, 0], "WEBP"))!;
  const text = sniff(Buffer.from("hi"))!;
  it.each([
    ["report.png", pdf, /named as a PNG image \(\.png\) but its content is a PDF/],
    ["notes.txt", pdf, /named as text \(\.txt\) but its content is a PDF/],
    ["scan.PDF", text, /named as a PDF \(\.pdf\) but its content is text/],
    ["photo.pdf", png, /named as a PDF/],
  ])("refuses %s holding another kind", (name, sniffed, message) => {
    expect(extensionLie(name, sniffed)).toMatch(message);
  });
  it.each([
    ["photo.jpg", webp],
    ["photo.png", png],
    ["notes.md", text],
    ["data.csv", text],
    ["no-extension", pdf],
    ["page.html", text],
    ["paper.pdf", pdf],
  ])("accepts %s", (name, sniffed) => {
    expect(extensionLie(name, sniffed)).toBeUndefined();
  });
});
