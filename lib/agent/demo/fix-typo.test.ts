import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createDemoModel } from "@/lib/model/demo-model";
import { createWorkspaceTools } from "@/lib/tools";
import { BUILTIN_DEFINITIONS } from "../definitions";
import { masterText, ofType, startTestTurn, tempWorkspace, type TurnRun } from "@/test/support/agent/harness";
import { dataOf, type DataOf } from "@/test/support/turn/agent-data";

/** The demo's "fix the typo" playbook: a depth-2 `file_edit` that waits for a person. */
let ws: Awaited<ReturnType<typeof tempWorkspace>>;
beforeEach(async () => {
  ws = await tempWorkspace({ "CONTRIBUTING.md": "# Contributing\n\n- Pull requests recieve a review.\n" });
});
afterEach(() => ws.cleanup());

function start(prompt: string): TurnRun {
  return startTestTurn(
    {
      model: createDemoModel({ chunkDelayMs: 0 }),
      workspaceDir: ws.dir,
      tools: createWorkspaceTools(),
      definitions: [...BUILTIN_DEFINITIONS],
    },
    prompt,
  );
}
async function pending(run: TurnRun): Promise<DataOf<"approval">> {
  for (let i = 0; i < 500; i++) {
    const found = dataOf(run.events, "approval").find((e) => e.approval.state === "pending");
    if (found) return found;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error("no approval was asked for");
}

describe("demo: fix the typo", () => {
  it("master → general → general, whose file_edit at depth 2 waits; approved, the file is fixed", async () => {
    const run = start("Fix the typo in CONTRIBUTING.md");
    const asked = await pending(run);
    const started = ofType(run.events, "subagent_started");
    expect(started.map((s) => [s.name, s.depth])).toEqual([
      ["general", 1],
      ["general", 2],
    ]);
    expect(asked.runId).toBe(started[1]!.runId);
    expect(asked.approval.reason).toBe('Line 3 of CONTRIBUTING.md says "recieve"; it should be "receive". I\'d like to correct that word.');
    expect(asked.approval.preview).toContain("+- Pull requests receive a review.");
    run.handle.decide!(asked.callId, asked.runId, { approve: true, by: "u1" });
    const result = await run.result;
    expect(result.status).toBe("completed");
    expect(await readFile(join(ws.dir, "CONTRIBUTING.md"), "utf8")).toBe("# Contributing\n\n- Pull requests receive a review.\n");
    expect(masterText(result.turn)).toContain("Done: Edited CONTRIBUTING.md: replaced 1 occurrence.");
  });

  it("denied with a reason, the answer quotes it and the file is unchanged", async () => {
    const run = start("Please fix the typo in CONTRIBUTING.md");
    const asked = await pending(run);
    run.handle.decide!(asked.callId, asked.runId, { approve: false, reason: "leave it for the author", by: "u1" });
    const result = await run.result;
    expect(masterText(result.turn)).toContain('The edit was not made. A person denied "file_edit": leave it for the author.');
    expect(await readFile(join(ws.dir, "CONTRIBUTING.md"), "utf8")).toContain("recieve");
  });
});
