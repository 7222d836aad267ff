import { createElement } from "react";
import { describe, expect, it } from "vitest";
import { BlockCache } from "./block-cache";

const el = (text: string) => createElement("p", null, text);

describe("BlockCache", () => {
  it("returns a cached render and drops the least recently used past its character budget", () => {
    const cache = new BlockCache(10);
    const a = el("a");
    cache.set("aaaa", a);
    cache.set("bbbb", el("b"));
    expect(cache.get("aaaa")).toBe(a); // now the most recent
    cache.set("cccc", el("c")); // 12 chars: "bbbb" goes
    expect(cache.get("bbbb")).toBeUndefined();
    expect(cache.get("aaaa")).toBe(a);
    expect(cache.get("cccc")).toBeDefined();
    expect(cache.size).toBe(2);
  });

  it("never holds a block larger than its whole budget", () => {
    const cache = new BlockCache(10);
    cache.set("x".repeat(11), el("x"));
    expect(cache.size).toBe(0);
  });
});
