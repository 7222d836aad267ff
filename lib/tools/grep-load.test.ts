import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestTurn, tempWorkspace } from "@/test/support/agent/harness";
import { scriptedModel, toolResults } from "@/test/support/agent/scripted-model";
import { createWorkspaceTools } from "./index";

/**
 * Security review finding: one model reply of many parallel grep calls over a workspace of
 * large files held every call's files in the main process at once and crashed the server
 * (heap out of memory). Model output is untrusted, so the reply's size must not decide
 * the server's memory.
 */
const FILES = 70;
/** Just under MAX_GREP_FILE_BYTES, so no file is skipped for its size. */
const FILE_BYTES = 1000 * 1024;
const CALLS = 48;
/** Calls that scan every file; the rest stop at their first few matches. */
const FULL_SCANS = 6;
const MAX_HEAP_GROWTH = 400 * 1024 * 1024;

let ws: Awaited<ReturnType<typeof tempWorkspace>>;

beforeAll(async () => {
  ws = await tempWorkspace();
  const line = "filler text of a large workspace file, searched by many calls at once\n";
  const body = line.repeat(Math.floor(FILE_BYTES / line.length));
  for (let i = 0; i < FILES; i++) {
    await writeFile(path.join(ws.dir, `big-${String(i).padStart(2, "0")}.txt`), `${body}marker-${i} at the end\n`);
  }
});
afterAll(() => ws?.cleanup());

/** Call i: a full scan for a marker in one file, or a capped search that stops early. */
function grepCall(i: number) {
  const args = i < FULL_SCANS ? { pattern: `marker-${i} at`, maxMatches: 5 } : { pattern: "filler", maxMatches: 3 + (i % 5) };
  return { id: `g${i}`, name: "grep", args };
}

describe("grep under a reply of many parallel calls", () => {
  it("keeps the heap bounded and answers every call, in call order", async () => {
    const calls = Array.from({ length: CALLS }, (_, i) => grepCall(i));
    const model = scriptedModel((req, i) => (i === 0 ? { toolCalls: calls } : { text: `${toolResults(req.messages).length} results` }));
    const baseline = process.memoryUsage().heapUsed;
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed)), 5);
    const started = Date.now();
    try {
      const run = startTestTurn({ model, workspaceDir: ws.dir, tools: createWorkspaceTools() }, "search everything at once");
      expect((await run.result).status).toBe("completed");
    } finally {
      clearInterval(sampler);
    }
    const growth = peak - baseline;
    console.info(`grep load: ${CALLS} calls, heap growth ${(growth / 2 ** 20).toFixed(0)} MB, ${Date.now() - started} ms`);
    expect(growth).toBeLessThan(MAX_HEAP_GROWTH);

    const results = toolResults(model.requests[1]!.messages);
    expect(results.map((r) => r.toolCallId)).toEqual(calls.map((c) => c.id));
    results.forEach((result, i) => {
      if (i < FULL_SCANS) expect(result.content).toContain(`big-${String(i).padStart(2, "0")}.txt:`);
      else expect(result.content).toMatch(new RegExp(`^${3 + (i % 5)}\\+ match\\(es\\)`));
    });
  }, 30_000);
});
