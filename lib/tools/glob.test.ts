import { describe, expect, it } from "vitest";
import { createGlobFilter } from "./glob";

describe("createGlobFilter", () => {
  it.each([
    ["*.md", "docs/plan.md", "docs", true],
    ["*.md", "README.md", ".", true],
    ["*.md", "docs/plan.mdx", "docs", false],
    ["*.{ts,py}", "src/a.py", "src", true],
    ["src/**/*.ts", "src/a.ts", "src", true],
    ["src/**/*.ts", "src/core/deep/a.ts", "src", true],
    ["src/**/*.ts", "lib/src/a.ts", "lib", false],
    ["src/*.ts", "src/core/a.ts", "src", false],
    ["core/*.ts", "src/core/a.ts", "core/a.ts", true],
    ["file?.txt", "file1.txt", ".", true],
    ["file?.txt", "file10.txt", ".", false],
    ["[ab].txt", "b.txt", ".", true],
    ["[!ab].txt", "b.txt", ".", false],
    ["a+b(1).md", "a+b(1).md", ".", true],
    ["a.md", "aXmd", ".", false],
    ["* (1).txt", "copy (1).txt", ".", true],
    ["* (1).txt", "copy 1.txt", ".", false],
    ["*", ".env", ".", true],
    ["src/**", "src/a/.hidden/b.ts", "src", true],
    ["{src,lib}/*.ts", "lib/a.ts", "lib", true],
  ])("%j on %j (searched as %j) → %s", (glob, workspacePath, searchPath, expected) => {
    expect(createGlobFilter(glob)(workspacePath, searchPath)).toBe(expected);
  });
});

describe("createGlobFilter refusals", () => {
  it.each([
    ["{a,b", /unclosed "\{"/],
    ["[ab", /unclosed "\["/],
    ["x".repeat(201), /longer than 200/],
    ["*a*a*a*a*a*a*a*ab", /more than 3 "\*" in one path segment/],
    ["*a*a*a*ab", /more than 3 "\*" in one path segment/],
    ["a?/b?/c?/d?/e?/f?/g?/h?/i?", /more than 8 wildcards/],
  ])("refuses %j", (glob, message) => {
    expect(() => createGlobFilter(glob)).toThrow(message);
  });

  it.each(["**/*.test.*", "*-*-*.md", "src/**/*.{ts,tsx}", "a\\*b\\*c\\*d\\*e*", "[*][*][*][*]*"])("accepts %j", (glob) => {
    expect(() => createGlobFilter(glob)).not.toThrow();
  });

  it("matches with the most stars it accepts quickly, even against a long near-miss name", () => {
    const started = Date.now();
    for (const glob of ["*a*a*ab", "**/*a*a*ab", "*a*a*ab/*a*a*ab"])
      createGlobFilter(glob)(`${"a/".repeat(50)}${"a".repeat(255)}`, "a".repeat(255));
    expect(Date.now() - started).toBeLessThan(500);
  });
});
