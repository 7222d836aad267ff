import { execFileSync } from "node:child_process";
import { constants } from "node:fs";
import { mkdir, mkdtemp, open, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fileReadTool } from "./file-read";
import { grepTool } from "./grep";
import { listFilesTool } from "./list-files";
import { openRegularFile } from "./text-files";
import { ToolError, type Tool } from "./types";

/**
 * Security review finding: a blocking open of a FIFO waits for a writer forever while
 * holding one of libuv's four file threads; four such tool calls froze every file
 * operation of the server. No tool may open a FIFO; each says so promptly instead.
 */
const PROMPT_MS = 1_000;

let base: string;
let ws: string;
const fifos: string[] = [];

beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), "delegate-fifo-")));
  ws = path.join(base, "ws");
  await mkdir(path.join(ws, "pipes"), { recursive: true });
  await writeFile(path.join(ws, "pipes", "notes.txt"), "a note next to a pipe\n");
  for (const name of ["pipes/pipe", "direct-pipe"]) {
    fifos.push(path.join(ws, name));
    execFileSync("mkfifo", [path.join(ws, name)]);
  }
});

afterAll(async () => {
  // Were a tool still blocked in an open (the bug), a writer's open would free its thread.
  for (const fifo of fifos)
    await open(fifo, constants.O_WRONLY | constants.O_NONBLOCK).then(
      (h) => h.close(),
      () => undefined,
    );
  await rm(base, { recursive: true, force: true });
});

/** The tool's text, or its ToolError message; fails if it does not answer within PROMPT_MS. */
async function promptly<A>(tool: Tool<A>, args: unknown): Promise<string> {
  const context = { workspaceDir: ws, signal: new AbortController().signal };
  const run = tool.run(tool.parse(args), context).catch((error: unknown) => {
    expect(error).toBeInstanceOf(ToolError);
    return (error as ToolError).message;
  });
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string>((resolve) => (timer = setTimeout(() => resolve("(no answer: blocked)"), PROMPT_MS)));
  try {
    return await Promise.race([run, late]);
  } finally {
    clearTimeout(timer);
  }
}

describe("file tools and FIFOs", () => {
  it("grep over a folder skips the FIFO and says so", async () => {
    const out = await promptly(grepTool, { pattern: "note", path: "pipes" });
    expect(out).toContain("pipes/notes.txt:1: a note next to a pipe");
    expect(out).toContain("[Skipped 1 special file(s) (pipes, sockets, devices): pipes/pipe.]");
  });

  it("grep on the FIFO itself refuses", async () => {
    expect(await promptly(grepTool, { pattern: "x", path: "direct-pipe" })).toMatch(/"direct-pipe" is not a regular file/);
  });

  it("list_files and file_read on the FIFO answer with a clear message", async () => {
    expect(await promptly(listFilesTool, { path: "direct-pipe" })).toContain("direct-pipe  (special file");
    expect(await promptly(listFilesTool, { path: "pipes" })).toContain("pipes/pipe  (special file)");
    expect(await promptly(fileReadTool, { path: "direct-pipe" })).toMatch(/not a regular file/);
  });

  it("openRegularFile refuses a FIFO without waiting for a writer (a file swapped in after the check)", async () => {
    await expect(openRegularFile(fifos[1]!, "direct-pipe")).rejects.toThrow(/not a regular file/);
  });

  it("six FIFO calls in a row leave the server's file threads free", async () => {
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => promptly(grepTool, { pattern: "x", path: i % 2 ? "direct-pipe" : "pipes/pipe" })),
    );
    const started = Date.now();
    const text = await Promise.race([
      readFile(path.join(ws, "pipes", "notes.txt"), "utf8"),
      new Promise<string>((resolve) => setTimeout(() => resolve("(blocked)"), PROMPT_MS)),
    ]);
    expect(text).toBe("a note next to a pipe\n");
    expect(Date.now() - started).toBeLessThan(PROMPT_MS);
    for (const answer of answers) expect(answer).toMatch(/is not a regular file/);
  });
});
