import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect } from "vitest";
import { fileReadTool, grepTool, listFilesTool } from "@/lib/tools";
import { ToolError, type Tool } from "@/lib/tools/types";
import { expand } from "./corpus";

/** One hostile tool call (test-data/hostile/file-tools.json, url-fetch.json). */
export interface ToolCase {
  id: string;
  note?: string;
  tool?: "file_read" | "list_files" | "grep";
  args?: unknown;
  url?: string;
  allowLocal?: boolean;
  maxBytes?: number;
  timeoutMs?: number;
  expect: { error?: string; contains?: string[]; excludes?: string[]; maxChars?: number; withinMs?: number; maxEventLoopLagMs?: number };
}

export const FILE_TOOLS: Record<string, Tool> = { file_read: fileReadTool, list_files: listFilesTool, grep: grepTool };

/** `lagMs`: the longest the caller's event loop stalled during the call. */
export type ToolOutcome = ({ ok: true; text: string } | { ok: false; message: string }) & { ms: number; lagMs: number };

const LAG_TICK_MS = 10;

/**
 * Runs a tool the way the agent loop does (parse the model's arguments, then run), while
 * a ticking timer measures how long the event loop stalls: a tool that blocks it would
 * freeze every chat on the server.
 */
export async function runTool(tool: Tool, args: unknown, workspaceDir: string): Promise<ToolOutcome> {
  const started = Date.now();
  let last = started;
  let lagMs = 0;
  const ticker = setInterval(() => {
    const now = Date.now();
    lagMs = Math.max(lagMs, now - last - LAG_TICK_MS);
    last = now;
  }, LAG_TICK_MS);
  const done = () => {
    clearInterval(ticker);
    lagMs = Math.max(lagMs, Date.now() - last - LAG_TICK_MS);
    return { ms: Date.now() - started, lagMs };
  };
  try {
    const text = await tool.run(tool.parse(args), { workspaceDir, signal: new AbortController().signal });
    return { ok: true, text, ...done() };
  } catch (error) {
    const timing = done();
    // Anything but a ToolError would reach the model as a crash, not a sentence.
    expect(error, String(error)).toBeInstanceOf(ToolError);
    return { ok: false, message: (error as Error).message, ...timing };
  }
}

export function checkToolOutcome(c: ToolCase, outcome: ToolOutcome): void {
  const want = c.expect;
  if (want.withinMs !== undefined) expect(outcome.ms, `${c.id} took ${outcome.ms} ms`).toBeLessThanOrEqual(want.withinMs);
  if (want.maxEventLoopLagMs !== undefined) {
    expect(outcome.lagMs, `${c.id}: the event loop stalled ${outcome.lagMs} ms`).toBeLessThanOrEqual(want.maxEventLoopLagMs);
  }
  if (want.error !== undefined) {
    expect(outcome.ok, `${c.id}: expected a refusal, got ${outcome.ok ? outcome.text.slice(0, 200) : ""}`).toBe(false);
    if (!outcome.ok) expect(outcome.message).toMatch(new RegExp(want.error));
    return;
  }
  expect(outcome.ok, `${c.id}: ${outcome.ok ? "" : outcome.message}`).toBe(true);
  if (!outcome.ok) return;
  for (const s of want.contains ?? []) expect(outcome.text).toContain(String(expand(s)));
  for (const s of want.excludes ?? []) expect(outcome.text).not.toContain(s);
  if (want.maxChars !== undefined) expect(outcome.text.length).toBeLessThanOrEqual(want.maxChars);
}

/**
 * A temp workspace holding every trap the file-tool corpus names, next to an "outside"
 * folder it must never read. Returns the workspace path and a cleanup.
 */
export async function buildHostileWorkspace(): Promise<{ base: string; ws: string; cleanup: () => Promise<void> }> {
  const base = await realpath(await mkdtemp(path.join(tmpdir(), "delegate-hostile-")));
  const ws = path.join(base, "ws");
  const outside = path.join(base, "outside");
  await mkdir(path.join(ws, "docs"), { recursive: true });
  await mkdir(outside);
  await writeFile(path.join(outside, "secret.txt"), "TOP SECRET outside the workspace\n");
  await writeFile(path.join(ws, "notes.txt"), "one\ntwo\nthree\n");
  await writeFile(path.join(ws, "docs", "readme.md"), "# Docs\n");
  await writeFile(
    path.join(ws, "evil.html"),
    '<html><body><script>window.__pwned=1</script><img src=x onerror="window.__pwned=2"></body></html>\n',
  );
  await writeFile(
    path.join(ws, "image.png"),
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]),
  );
  await writeFile(path.join(ws, "nul-early.txt"), `${"text ".repeat(100)}\u0000more text\n`);
  await writeFile(path.join(ws, "latin1.txt"), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x20, 0xc0, 0xff, 0x0a]));
  await writeFile(path.join(ws, "huge.log"), "filler line of text for a big file\n".repeat(180_000));
  await writeFile(path.join(ws, "one-line.txt"), "x".repeat(2 * 1024 * 1024));
  // Line 1 makes (a|a)*$ backtrack exponentially; line 2 makes six \w* backtrack polynomially.
  await writeFile(path.join(ws, "redos.txt"), `${"a".repeat(40)}!\n${"a".repeat(300)}\n`);
  await symlink(outside, path.join(ws, "escape"));
  await symlink(path.join(outside, "secret.txt"), path.join(ws, "secret-link.txt"));
  await symlink("/etc/passwd", path.join(ws, "passwd-link"));
  await symlink("/proc/self/environ", path.join(ws, "environ-link"));
  await symlink("/dev/zero", path.join(ws, "zero-link"));
  await symlink(path.join(ws, "loop-b"), path.join(ws, "loop-a"));
  await symlink(path.join(ws, "loop-a"), path.join(ws, "loop-b"));
  await symlink(path.join(ws, "chain-2"), path.join(ws, "chain-1"));
  await symlink(path.join(outside, "secret.txt"), path.join(ws, "chain-2"));
  await symlink("../outside/secret.txt", path.join(ws, "relative-out"));
  execFileSync("mkfifo", [path.join(ws, "pipe")]);
  return { base, ws, cleanup: () => rm(base, { recursive: true, force: true }) };
}
