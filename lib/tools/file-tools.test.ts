import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fileReadTool } from "./file-read";
import { grepTool } from "./grep";
import { createWorkspaceTools } from "./index";
import { listFilesTool, MAX_LIST_ENTRIES } from "./list-files";
import { ToolError, type Tool, type ToolContext } from "./types";

let base: string;
let context: ToolContext;

beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), "delegate-tools-")));
  const ws = path.join(base, "ws");
  const file = (rel: string, content: string | Buffer) =>
    mkdir(path.dirname(path.join(ws, rel)), { recursive: true }).then(() => writeFile(path.join(ws, rel), content));
  await file("README.md", "# Tidepool\nPredicts tides.\nSee docs/plan.md for the release plan.\n");
  await file("docs/plan.md", "Release 0.5 on Friday.\nFIXME: datum bug blocks release\n");
  await file("src/core/harmonics.ts", "export const x = 1; // TODO: add M4\n// FIXME: leap seconds\n");
  await file("src/index.ts", "export * from './core/harmonics';\n// todo lowercase\n");
  await file("notes/standup.txt", "Mara owns the datum FIXME.\r\nBen reviews.\r\n");
  await file("data/huge.log", `${"FIXME filler line of text\n".repeat(220_000)}`); // ~5.7 MB
  await file("assets/logo.png", Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x46, 0x49, 0x58]));
  await file("many/.keep", "");
  for (let i = 0; i < MAX_LIST_ENTRIES + 20; i++) await file(`many/f${String(i).padStart(3, "0")}.txt`, "x");
  await mkdir(path.join(base, "outside"));
  await writeFile(path.join(base, "outside", "secret.md"), "FIXME secret outside\n");
  await symlink(path.join(base, "outside"), path.join(ws, "escape"));
  context = { workspaceDir: ws, signal: new AbortController().signal };
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

async function call<A>(tool: Tool<A>, args: unknown): Promise<string> {
  return tool.run(tool.parse(args), context);
}

async function refused<A>(tool: Tool<A>, args: unknown): Promise<string> {
  const error = await call(tool, args).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ToolError);
  return (error as ToolError).message;
}

describe("createWorkspaceTools", () => {
  it("offers the file tools, and url_fetch only when enabled", () => {
    expect(createWorkspaceTools({}).map((t) => t.spec.name)).toEqual(["list_files", "file_read", "grep", "file_write", "file_edit"]);
    expect(createWorkspaceTools({ urlFetch: { enabled: false } }).map((t) => t.spec.name)).not.toContain("url_fetch");
    expect(createWorkspaceTools({ urlFetch: { enabled: true } }).map((t) => t.spec.name)).toContain("url_fetch");
  });

  it("describes arguments as a JSON Schema object the model can follow", () => {
    const spec = fileReadTool.spec;
    expect(spec.parameters).toMatchObject({ type: "object", required: ["path"] });
    expect(Object.keys(spec.parameters.properties as object)).toEqual(["path", "startLine", "endLine"]);
  });
});

describe("list_files", () => {
  it("lists the root with folders marked and file sizes", async () => {
    const out = await call(listFilesTool, {});
    expect(out).toContain("README.md  (");
    expect(out).toContain("docs/\n");
    expect(out).not.toContain("docs/plan.md");
    expect(out).toContain("escape  (symbolic link)");
  });

  it("lists recursively with workspace-relative paths, without following links out", async () => {
    const out = await call(listFilesTool, { path: "src", recursive: true });
    expect(out).toContain("src/core/");
    expect(out).toContain("src/core/harmonics.ts");
    expect(out).toContain("src/index.ts");
    const all = await call(listFilesTool, { path: ".", recursive: true });
    expect(all).not.toContain("secret.md");
  });

  it("caps the number of entries and says so", async () => {
    const out = await call(listFilesTool, { path: "many" });
    expect(out.split("\n").filter((l) => l.startsWith("many/"))).toHaveLength(MAX_LIST_ENTRIES);
    expect(out).toMatch(/first 500 entries/);
  });

  it("refuses paths outside the workspace", async () => {
    expect(await refused(listFilesTool, { path: "../" })).toMatch(/outside the workspace/);
    expect(await refused(listFilesTool, { path: "escape" })).toMatch(/points outside/);
  });

  it("rejects arguments of the wrong type with a sentence", async () => {
    expect(() => listFilesTool.parse({ path: 42 })).toThrow(/Invalid arguments for list_files: path/);
  });
});

describe("file_read", () => {
  it("reads a file with line numbers", async () => {
    const out = await call(fileReadTool, { path: "docs/plan.md" });
    expect(out).toBe("docs/plan.md (lines 1-2, end of file):\n1\tRelease 0.5 on Friday.\n2\tFIXME: datum bug blocks release");
  });

  it("reads a line range and strips CRLF line ends", async () => {
    const out = await call(fileReadTool, { path: "notes/standup.txt", startLine: 1, endLine: 1 });
    expect(out).toBe("notes/standup.txt (lines 1-1):\n1\tMara owns the datum FIXME.");
    const last = await call(fileReadTool, { path: "notes/standup.txt", startLine: 2 });
    expect(last).toBe("notes/standup.txt (lines 2-2, end of file):\n2\tBen reviews.");
  });

  it("treats null optional arguments as left out", async () => {
    expect(await call(fileReadTool, { path: "README.md", startLine: null, endLine: 1 })).toBe("README.md (lines 1-1):\n1\t# Tidepool");
  });

  it("accepts arguments given as a JSON string", async () => {
    expect(await call(fileReadTool, '{"path":"README.md","endLine":1}')).toContain("1\t# Tidepool");
  });

  it("truncates a 5 MB file at 256 KB and says where to continue", async () => {
    const out = await call(fileReadTool, { path: "data/huge.log" });
    expect(Buffer.byteLength(out)).toBeLessThan(260 * 1024);
    expect(Buffer.byteLength(out)).toBeGreaterThan(200 * 1024);
    const next = Number(/startLine=(\d+)/.exec(out)?.[1]);
    expect(out).toMatch(/Truncated: showed 256\.0 KB of a 5\.\d MB file/);
    const page = await call(fileReadTool, { path: "data/huge.log", startLine: next, endLine: next + 1 });
    expect(page).toContain(`${next}\tFIXME filler line of text`);
  });

  it("refuses binary files", async () => {
    expect(await refused(fileReadTool, { path: "assets/logo.png" })).toMatch(/binary file/);
  });

  it("refuses folders, escapes, /proc and links out", async () => {
    expect(await refused(fileReadTool, { path: "docs" })).toMatch(/is a folder/);
    expect(await refused(fileReadTool, { path: "../outside/secret.md" })).toMatch(/outside the workspace/);
    expect(await refused(fileReadTool, { path: "/proc/self/environ" })).toMatch(/\/proc/);
    expect(await refused(fileReadTool, { path: "escape/secret.md" })).toMatch(/points outside/);
  });

  it("rejects a backwards range and a start past the end", async () => {
    expect(() => fileReadTool.parse({ path: "README.md", startLine: 5, endLine: 2 })).toThrow(/endLine/);
    expect(await refused(fileReadTool, { path: "README.md", startLine: 50 })).toMatch(/only 3 lines/);
  });
});

describe("grep", () => {
  it("finds matches as path:line: text across the workspace", async () => {
    const out = await call(grepTool, { pattern: "FIXME", glob: "*.{md,ts,txt}" });
    expect(out).toContain("docs/plan.md:2: FIXME: datum bug blocks release");
    expect(out).toContain("src/core/harmonics.ts:2: // FIXME: leap seconds");
    expect(out).toContain("notes/standup.txt:1: Mara owns the datum FIXME.");
    expect(out).not.toContain("secret");
  });

  it("filters by a name glob", async () => {
    const out = await call(grepTool, { pattern: "FIXME", glob: "*.md" });
    expect(out).toContain("docs/plan.md:2:");
    expect(out).not.toContain("harmonics.ts");
    expect(out).not.toContain("standup.txt");
  });

  it("filters by a path glob with **", async () => {
    const out = await call(grepTool, { pattern: "todo", ignoreCase: true, glob: "src/**/*.ts" });
    expect(out).toContain("src/core/harmonics.ts:1:");
    expect(out).toContain("src/index.ts:2: // todo lowercase");
    expect(out).not.toContain("docs/");
  });

  it("is case-sensitive unless asked", async () => {
    const out = await call(grepTool, { pattern: "todo", path: "src" });
    expect(out).toContain("src/index.ts:2:");
    expect(out).not.toContain("harmonics.ts");
  });

  it("skips binary and huge files and says so", async () => {
    const out = await call(grepTool, { pattern: "FIX" });
    expect(out).toMatch(/Skipped 1 file\(s\) over 1\.0 MB: data\/huge\.log/);
    expect(out).toMatch(/Skipped 1 binary file/);
    expect(out).not.toContain("logo.png:");
  });

  it("caps the matches", async () => {
    const out = await call(grepTool, { pattern: "x", path: "many", maxMatches: 7 });
    expect(out.split("\n").filter((l) => /^many\/f\d+\.txt:1: x$/.test(l))).toHaveLength(7);
    expect(out).toMatch(/Stopped at 7 matches/);
  });

  it("reports no matches plainly", async () => {
    expect(await call(grepTool, { pattern: "zebra-unicorn" })).toMatch(/^No matches for \/zebra-unicorn\//);
  });

  it("rejects invalid and runaway regular expressions before searching", () => {
    expect(() => grepTool.parse({ pattern: "(unclosed" })).toThrow(/not a valid regular expression/);
    expect(() => grepTool.parse({ pattern: "(a+)+$" })).toThrow(/simplify/);
    expect(() => grepTool.parse({ pattern: "x", glob: "{a,b" })).toThrow(/unclosed/);
  });

  it("refuses to search outside the workspace", async () => {
    expect(await refused(grepTool, { pattern: "secret", path: "../outside" })).toMatch(/outside the workspace/);
    expect(await refused(grepTool, { pattern: "secret", path: "escape" })).toMatch(/points outside/);
  });
});
