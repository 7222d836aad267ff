import { describe, expect, it } from "vitest";
import { Binary } from "mongodb";
import { decodeBlob, encodeBlob } from "./blob-codec";

describe("model-call blob codec", () => {
  it("keeps a short message as readable text", async () => {
    const json = JSON.stringify({ role: "user", content: "hello" });
    expect(await encodeBlob(json)).toEqual({ json });
  });

  it("compresses a long request at least three times and reads it back exactly, also as the driver's Binary", async () => {
    const json = JSON.stringify({
      role: "tool",
      content:
        Array.from({ length: 400 }, (_, i) => `src/module-${i % 40}.ts:${i}: export function handle${i % 7}(event) { return event; }`).join(
          "\n",
        ) + " é 漢 🙂",
    });
    const stored = await encodeBlob(json);
    expect(stored.z).toBeInstanceOf(Buffer);
    expect(stored.json).toBeUndefined();
    expect(stored.z!.length * 3).toBeLessThan(Buffer.byteLength(json));
    expect(decodeBlob(stored)).toBe(json);
    expect(decodeBlob({ z: new Binary(stored.z!) })).toBe(json);
  });

  it("keeps text that does not shrink as text", async () => {
    const random = Buffer.from(Array.from({ length: 2_000 }, () => Math.floor(Math.random() * 256))).toString("base64");
    const json = JSON.stringify(random);
    const stored = await encodeBlob(json);
    expect(decodeBlob(stored)).toBe(json);
  });

  it("says so when a row holds neither field", () => {
    expect(() => decodeBlob({})).toThrow(/neither/);
  });
});
