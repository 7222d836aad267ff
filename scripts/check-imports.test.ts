import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { applyAllowList, checkRepository, findCycles, importSpecifiers, resolveSpecifier } from "./check-imports.mjs";

/** The import graph of a set of in-memory files, resolved the way the checker resolves the repository. */
function graphOf(files: Record<string, string>): Map<string, string[]> {
  const exists = (p: string) => p in files;
  const graph = new Map<string, string[]>();
  for (const [file, source] of Object.entries(files)) {
    const targets = importSpecifiers(source).map((s) => resolveSpecifier(file, s, exists));
    graph.set(
      file,
      targets.filter((t): t is string => typeof t === "string"),
    );
  }
  return graph;
}

describe("findCycles", () => {
  const cases: { name: string; files: Record<string, string>; cycles: string[][] }[] = [
    {
      name: "a chain has no cycle",
      files: {
        "lib/a.ts": `import { b } from "./b";`,
        "lib/b.ts": `import { c } from "@/lib/c";`,
        "lib/c.ts": `import { z } from "zod";`,
      },
      cycles: [],
    },
    {
      name: "a two-file cycle is reported once, from its smallest file",
      files: {
        "server/z.ts": `import { a } from "./a";`,
        "server/a.ts": `import { z } from "@/server/z";`,
      },
      cycles: [["server/a.ts", "server/z.ts", "server/a.ts"]],
    },
    {
      name: "a type-only import and an export-from close a cycle",
      files: {
        "lib/a.ts": `import type { B } from "./b";`,
        "lib/b.ts": `export { a } from "./a";`,
      },
      cycles: [["lib/a.ts", "lib/b.ts", "lib/a.ts"]],
    },
    {
      name: "imports in comments and strings are not imports",
      files: {
        "lib/a.ts": `import { b } from "./b";`,
        "lib/b.ts": `// import { a } from "./a";\nconst s = 'import "./a"';\n/* export * from "./a" */`,
      },
      cycles: [],
    },
    {
      name: "a cycle with a chord yields each elementary cycle once",
      files: {
        "lib/a.ts": `import "./b";`,
        "lib/b.ts": `import "./c"; import "./a";`,
        "lib/c.ts": `import "./a";`,
      },
      cycles: [
        ["lib/a.ts", "lib/b.ts", "lib/a.ts"],
        ["lib/a.ts", "lib/b.ts", "lib/c.ts", "lib/a.ts"],
      ],
    },
    {
      name: "relative parents, index files and .js specifiers resolve to the .ts file",
      files: {
        "server/x/index.ts": `import { y } from "../y.js";`,
        "server/y.ts": `import { x } from "./x";`,
      },
      cycles: [["server/x/index.ts", "server/y.ts", "server/x/index.ts"]],
    },
    {
      name: "a file importing itself is a cycle",
      files: { "lib/self.ts": `import { me } from "./self";` },
      cycles: [["lib/self.ts", "lib/self.ts"]],
    },
    {
      name: "two separate cycles are both reported",
      files: {
        "lib/a.ts": `import "./b";`,
        "lib/b.ts": `import "./a"; import "./c";`,
        "lib/c.ts": `import "./d";`,
        "lib/d.ts": `import "./c";`,
      },
      cycles: [
        ["lib/a.ts", "lib/b.ts", "lib/a.ts"],
        ["lib/c.ts", "lib/d.ts", "lib/c.ts"],
      ],
    },
  ];

  for (const { name, files, cycles } of cases) {
    it(name, () => {
      const found = findCycles(graphOf(files));
      expect([...found].sort((p, q) => p.join().localeCompare(q.join()))).toEqual(cycles);
    });
  }
});

describe("applyAllowList", () => {
  const cycles = [
    ["lib/a.ts", "lib/b.ts", "lib/a.ts"],
    ["lib/a.ts", "lib/c.ts", "lib/a.ts"],
  ];

  it("passes a cycle whose files all belong to one group and reports the others", () => {
    const { reported, allowed, stale } = applyAllowList(cycles, [{ files: ["lib/a.ts", "lib/b.ts"] }]);
    expect(reported).toEqual([["lib/a.ts", "lib/c.ts", "lib/a.ts"]]);
    expect(allowed).toEqual([["lib/a.ts", "lib/b.ts", "lib/a.ts"]]);
    expect(stale).toEqual([]);
  });

  it("names a group that no longer forms any cycle", () => {
    const { reported, stale } = applyAllowList(cycles, [
      { files: ["lib/a.ts", "lib/b.ts", "lib/c.ts"] },
      { files: ["lib/x.ts", "lib/y.ts"] },
    ]);
    expect(reported).toEqual([]);
    expect(stale).toEqual([{ files: ["lib/x.ts", "lib/y.ts"] }]);
  });
});

describe("resolveSpecifier", () => {
  it("leaves packages alone and marks a local specifier with no file", () => {
    const exists = (p: string) => p === "lib/a.ts";
    expect(resolveSpecifier("lib/b.ts", "zod", exists)).toBeUndefined();
    expect(resolveSpecifier("lib/b.ts", "@/lib/a", exists)).toBe("lib/a.ts");
    expect(resolveSpecifier("lib/b.ts", "./missing", exists)).toBeNull();
  });
});

describe("checkRepository", () => {
  it("names each import across a layer, each cycle and each stale allow-list entry, and lets tests use test support", () => {
    const root = mkdtempSync(path.join(tmpdir(), "check-imports-"));
    const files: Record<string, string> = {
      "lib/export/md.ts": `import { f } from "@/components/ui/format";`,
      "components/ui/format.ts": `export const f = 1;`,
      "components/ui/panel.tsx": `import type { Row } from "@/server/data/rows";`,
      "server/data/rows.ts": `import { a } from "./a";`,
      "server/data/a.ts": `import type { Row } from "./rows";`,
      "server/data/rows.test.ts": `import { db } from "@/test/support/db"; import "@/components/ui/format";`,
      "lib/contracts/events.ts": `import { z } from "zod"; import "./ack";`,
      "lib/contracts/ack.ts": `import { z } from "zod";`,
      "lib/turn/reduce.ts": `import "./missing";`,
      "test/support/db.ts": `export const db = 1;`,
    };
    try {
      for (const [file, source] of Object.entries(files)) {
        mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
        writeFileSync(path.join(root, file), source);
      }
      const { problems, allowed } = checkRepository(root, [{ files: ["lib/x.ts", "lib/y.ts"] }]);
      expect(allowed).toEqual([]);
      expect(problems.sort()).toEqual(
        [
          "lib/export/md.ts imports components/ui/format.ts (the core and the server must not depend on React or routes)",
          "components/ui/panel.tsx imports server/data/rows.ts (components/ is React only)",
          "server/data/rows.test.ts imports components/ui/format.ts (the core and the server must not depend on React or routes)",
          'lib/turn/reduce.ts: "./missing" matches no file',
          "import cycle: server/data/a.ts → server/data/rows.ts → server/data/a.ts",
          "ALLOWED_CYCLES in scripts/check-imports.mjs lists lib/x.ts, lib/y.ts, which no longer import each other in a cycle: remove the entry",
        ].sort(),
      );
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
