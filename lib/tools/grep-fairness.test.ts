import { mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { grepTool } from "./grep";

/**
 * Security review finding: 20 catastrophic patterns from one user made another user's
 * trivial grep wait 27 s in the shared pool of two regex workers. Taking turns between
 * runs is not enough, since one person can run many (3 turns, each with subagents): the
 * pool takes turns between people.
 */
let ws: string;
beforeAll(async () => {
  ws = await realpath(await mkdtemp(path.join(tmpdir(), "delegate-fair-")));
  await writeFile(path.join(ws, "slow.txt"), `${"a".repeat(40)}!\n`);
  await writeFile(path.join(ws, "notes.txt"), "hay\nneedle\n");
});
afterAll(() => rm(ws, { recursive: true, force: true }));

/** Each greedy grep backtracks until grep's own time limit (3 s) ends it. */
const GREP_LIMIT_MS = 3_000;

describe("grep's regex pool between people", () => {
  it("serves another person's grep after one round, however many runs the first person has", { timeout: 30_000 }, async () => {
    // Eight runs of one person (each run has its own abort signal), a slow grep each.
    const runs = Array.from({ length: 8 }, () => new AbortController());
    const greedy = runs.map((run) =>
      grepTool
        .run(grepTool.parse({ pattern: "^(a|a)*$", path: "slow.txt" }), { workspaceDir: ws, signal: run.signal, ownerId: "mallory" })
        .catch((e: unknown) => e),
    );
    const started = Date.now();
    const quick = await grepTool.run(grepTool.parse({ pattern: "needle", path: "notes.txt" }), {
      workspaceDir: ws,
      signal: new AbortController().signal,
      ownerId: "alice",
    });
    const waited = Date.now() - started;
    for (const run of runs) run.abort();
    await Promise.all(greedy);
    expect(quick).toMatch(/notes\.txt:2: needle/);
    // Behind the two greps already running, then first in line: about one limit, not four
    // (which is what taking turns between the eight runs gives).
    expect(waited).toBeLessThan(2 * GREP_LIMIT_MS);
  });
});
