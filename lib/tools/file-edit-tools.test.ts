import { execFileSync } from "node:child_process";
import { constants } from "node:fs";
import { lstat, mkdir, mkdtemp, open, readFile, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { editPreview, MAX_PREVIEW_CHARS } from "./edit-preview";
import { fileEditTool } from "./file-edit";
import { fileWriteTool } from "./file-write";
import { createWorkspaceTools } from "./index";
import { ToolError, type Tool, type ToolContext } from "./types";
import { MAX_WRITE_BYTES } from "./writable-file";

/** file_write and file_edit over real files: confinement, symlinks, FIFOs, exact matches, the diff a person approves. */
let base: string;
let ws: string;
let context: ToolContext;
const fifo = () => path.join(ws, "pipe");

beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), "delegate-edit-")));
  ws = path.join(base, "ws");
  await mkdir(path.join(ws, "docs"), { recursive: true });
  await mkdir(path.join(base, "outside"));
  await writeFile(path.join(base, "outside", "secret.md"), "secret\n");
  await symlink(path.join(base, "outside"), path.join(ws, "escape"));
  await symlink(path.join(base, "outside", "secret.md"), path.join(ws, "secret-link.md"));
  await writeFile(path.join(ws, "assets.bin"), Buffer.from([0x89, 0x50, 0, 0, 1]));
  execFileSync("mkfifo", [fifo()]);
  context = { workspaceDir: ws, signal: new AbortController().signal };
});

afterAll(async () => {
  await open(fifo(), constants.O_WRONLY | constants.O_NONBLOCK).then(
    (h) => h.close(),
    () => undefined,
  );
  await rm(base, { recursive: true, force: true });
});

const run = <A>(tool: Tool<A>, args: unknown) => tool.run(tool.parse(args), context);
const preview = <A>(tool: Tool<A>, args: unknown) => tool.preview!(tool.parse(args), context);
async function refused(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ToolError);
  return (error as ToolError).message;
}
const read = (rel: string) => readFile(path.join(ws, rel), "utf8");

describe("file_write", () => {
  it("creates a file and its missing folders inside the workspace, then overwrites it", async () => {
    expect(await run(fileWriteTool, { path: "new/deep/notes.md", content: "one\n" })).toBe("Created new/deep/notes.md (4 B).");
    expect(await read("new/deep/notes.md")).toBe("one\n");
    expect(await run(fileWriteTool, { path: "new/deep/notes.md", content: "two\n" })).toBe("Replaced the text of new/deep/notes.md (4 B).");
    expect(await read("new/deep/notes.md")).toBe("two\n");
  });

  it("refuses paths that lead out of the workspace, by .., absolute path or symlinked folder, and creates nothing", async () => {
    expect(await refused(run(fileWriteTool, { path: "../outside/x.md", content: "x" }))).toMatch(/outside the workspace/);
    expect(await refused(run(fileWriteTool, { path: path.join(base, "outside", "y.md"), content: "x" }))).toMatch(/outside the workspace/);
    expect(await refused(run(fileWriteTool, { path: "escape/new/z.md", content: "x" }))).toMatch(/symbolic link that points outside/);
    expect(await refused(run(fileWriteTool, { path: "secret-link.md", content: "pwned" }))).toMatch(/symbolic link that points outside/);
    await expect(lstat(path.join(base, "outside", "new"))).rejects.toThrow();
    expect(await readFile(path.join(base, "outside", "secret.md"), "utf8")).toBe("secret\n");
  });

  it("refuses a FIFO at once, without waiting for a reader", async () => {
    const started = Date.now();
    expect(await refused(run(fileWriteTool, { path: "pipe", content: "x" }))).toMatch(/not a regular file/);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it("refuses folders, binary files and content over the cap", async () => {
    expect(await refused(run(fileWriteTool, { path: "docs", content: "x" }))).toMatch(/is a folder/);
    expect(await refused(run(fileWriteTool, { path: "assets.bin", content: "x" }))).toMatch(/binary file/);
    expect(() => fileWriteTool.parse({ path: "big.txt", content: "x".repeat(MAX_WRITE_BYTES + 1) })).toThrow(ToolError);
  });

  it("previews a new file as a diff from /dev/null", async () => {
    const diff = await preview(fileWriteTool, { path: "docs/fresh.md", content: "hello\n" });
    expect(diff).toContain("--- /dev/null");
    expect(diff).toContain("+++ b/docs/fresh.md");
    expect(diff).toContain("+hello");
    await expect(lstat(path.join(ws, "docs/fresh.md"))).rejects.toThrow();
  });
});

describe("file_edit", () => {
  it("replaces the one occurrence, and previews exactly that change", async () => {
    await writeFile(path.join(ws, "docs/typo.md"), "# Tides\nThe tied is high.\nBye\n");
    const diff = await preview(fileEditTool, { path: "docs/typo.md", old_string: "tied", new_string: "tide" });
    expect(diff).toContain("--- a/docs/typo.md");
    expect(diff).toContain("-The tied is high.");
    expect(diff).toContain("+The tide is high.");
    expect(await read("docs/typo.md")).toContain("tied");
    expect(await run(fileEditTool, { path: "docs/typo.md", old_string: "tied", new_string: "tide" })).toBe(
      "Edited docs/typo.md: replaced 1 occurrence.",
    );
    expect(await read("docs/typo.md")).toBe("# Tides\nThe tide is high.\nBye\n");
  });

  it("says so when old_string occurs 0 times, or more than once without replace_all, and leaves the file alone", async () => {
    await writeFile(path.join(ws, "docs/twice.md"), "ab ab\n");
    expect(await refused(run(fileEditTool, { path: "docs/twice.md", old_string: "zz", new_string: "y" }))).toMatch(
      /old_string was not found in docs\/twice.md/,
    );
    expect(await refused(preview(fileEditTool, { path: "docs/twice.md", old_string: "ab", new_string: "y" }))).toMatch(
      /occurs 2 times in docs\/twice.md.*replace_all/,
    );
    expect(await read("docs/twice.md")).toBe("ab ab\n");
    expect(await run(fileEditTool, { path: "docs/twice.md", old_string: "ab", new_string: "$&c", replace_all: true })).toBe(
      "Edited docs/twice.md: replaced 2 occurrences.",
    );
    expect(await read("docs/twice.md")).toBe("$&c $&c\n");
  });

  it("refuses missing files, a no-op edit, symlinks out, and FIFOs", async () => {
    expect(await refused(run(fileEditTool, { path: "docs/none.md", old_string: "a", new_string: "b" }))).toMatch(/use file_write/);
    expect(() => fileEditTool.parse({ path: "docs/typo.md", old_string: "a", new_string: "a" })).toThrow(/nothing to change/);
    expect(await refused(run(fileEditTool, { path: "secret-link.md", old_string: "secret", new_string: "x" }))).toMatch(
      /outside the workspace/,
    );
    expect(await refused(run(fileEditTool, { path: "pipe", old_string: "a", new_string: "b" }))).toMatch(/not a regular file/);
  });

  it("cuts a huge diff and says so", async () => {
    const lines = Array.from({ length: 600 }, (_, i) => `line ${i} of the tide table`).join("\n");
    await writeFile(path.join(ws, "docs/big.md"), lines);
    // Through the tool: bounded, whichever limit it meets first (length, or time on a busy machine).
    const diff = await preview(fileEditTool, { path: "docs/big.md", old_string: " of the", new_string: " in the", replace_all: true });
    expect(diff.length).toBeLessThan(MAX_PREVIEW_CHARS + 200);
    expect(diff).toMatch(/diff cut: \d+ more characters|took too long to compute/);
    // With time to spare, the length limit cuts it and says by how much.
    const cut = editPreview("docs/big.md", lines, lines.replaceAll(" of the", " in the"), 60_000);
    expect(cut.length).toBeLessThan(MAX_PREVIEW_CHARS + 200);
    expect(cut).toMatch(/diff cut: \d+ more characters/);
  });

  it("gives up on a diff that would stall the server, and says so", async () => {
    const lines = Array.from({ length: 5000 }, (_, i) => `line ${i} of the tide table`).join("\n");
    await writeFile(path.join(ws, "docs/huge.md"), lines);
    const started = Date.now();
    const diff = await preview(fileEditTool, { path: "docs/huge.md", old_string: " of the", new_string: " in the", replace_all: true });
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(diff).toMatch(/The diff of docs\/huge.md took too long to compute/);
  });
});

it("the edit tools are among the workspace tools and need approval; the reading tools do not", () => {
  const tools = createWorkspaceTools();
  const needs = tools.filter((t) => t.requiresApproval).map((t) => t.spec.name);
  expect(needs).toEqual(["file_write", "file_edit"]);
});
