import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CORPUS_DIR, expand, loadCorpus } from "./corpus";

describe("expand", () => {
  it.each([
    ["a 10 MB string", { $repeat: "x", times: 10_485_760 }, (v: unknown) => typeof v === "string" && v.length === 10_485_760],
    ["a concatenation", { $concat: ["<", { $repeat: "ab", times: 2 }, ">"] }, (v: unknown) => v === "<abab>"],
    ["stream chunks", { $chunks: "abcdefg", size: 3 }, (v: unknown) => JSON.stringify(v) === '["abc","def","g"]'],
    ["NaN", { $number: "NaN" }, (v: unknown) => Number.isNaN(v)],
    ["-0", { $number: "-0" }, (v: unknown) => Object.is(v, -0)],
    ["1e309", { $number: "1e309" }, (v: unknown) => v === Number.POSITIVE_INFINITY],
    ["bytes", { $bytes: "aGk=" }, (v: unknown) => Buffer.isBuffer(v) && v.toString() === "hi"],
    ["JSON text", { $json: { a: [1] } }, (v: unknown) => v === '{"a":[1]}'],
    ["a literal", { $literal: { $repeat: "x" } }, (v: unknown) => JSON.stringify(v) === '{"$repeat":"x"}'],
    ["many keys", { $manyKeys: 3 }, (v: unknown) => JSON.stringify(v) === '{"k0":0,"k1":1,"k2":2}'],
  ])("builds %s", (_name, descriptor, check) => {
    expect(check(expand(descriptor))).toBe(true);
  });

  it("nests 10,000 levels, as a value and as JSON text", () => {
    let depth = 0;
    for (let v = expand({ $nest: 10_000 }) as { a?: unknown } | null; v && typeof v === "object"; v = v.a as { a?: unknown }) depth++;
    expect(depth).toBe(10_000);
    const text = expand({ $nestText: 10_000, as: "array" }) as string;
    expect(text.length).toBe(20_004);
    expect(text.startsWith("[[[") && text.endsWith("]]]")).toBe(true);
  });

  it("keeps __proto__ an own key instead of setting the prototype", () => {
    const value = expand(JSON.parse('{"__proto__":{"polluted":true}}')) as Record<string, unknown>;
    expect(Object.keys(value)).toEqual(["__proto__"]);
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(JSON.stringify(value)).toBe('{"__proto__":{"polluted":true}}');
  });

  it("fills known placeholders and leaves others", () => {
    expect(expand({ "{session}": "/api/sessions/{session}/{unknown}" }, { session: "abc" })).toEqual({
      abc: "/api/sessions/abc/{unknown}",
    });
  });

  it("refuses a descriptor that would build an absurd value", () => {
    expect(() => expand({ $repeat: "x", times: 1e12 })).toThrow(/bad \$repeat/);
    expect(() => expand({ $nest: 1e7 })).toThrow(/bad \$nest/);
  });
});

describe("the hostile corpus", () => {
  const files = readdirSync(CORPUS_DIR).filter((f) => f.endsWith(".json"));
  const sizes = Object.fromEntries(files.map((f) => [f, loadCorpus(f).cases.length]));

  it("holds at least 200 cases across its files, each file described", () => {
    expect(files).toEqual(
      expect.arrayContaining([
        "socket-commands.json",
        "http-requests.json",
        "socket-flood.json",
        "file-tools.json",
        "url-fetch.json",
        "render.json",
      ]),
    );
    expect(Object.values(sizes).reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(200);
    for (const f of files) expect(loadCorpus(f).description.length, f).toBeGreaterThan(50);
  });

  it("names an expected outcome for every case", () => {
    for (const f of files)
      for (const c of loadCorpus<{ id: string; expect?: unknown; expectText?: string; expectToolText?: string }>(f).cases) {
        expect(c.expect ?? c.expectText ?? c.expectToolText, `${f} ${c.id}`).toBeTruthy();
      }
  });
});
