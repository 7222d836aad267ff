import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { emptyStats, type ChatTurn } from "@/lib/contracts";
import { COMPACT_SYSTEM_PROMPT, OBJECTIVE_TAG, SUMMARY_TAG } from "@/lib/context/compact";
import { estimateRequestTokens } from "@/lib/context/tokens";
import type { ModelRequest } from "@/lib/model/types";
import { CONDENSE_SYSTEM_PROMPT } from "./condense";
import { MASTER_PROMPT_MARKER } from "./prompts";
import { ofType, startTestTurn, tempWorkspace, processOfRun } from "@/test/support/agent/harness";
import { scriptedModel, systemOf, toolResults } from "@/test/support/agent/scripted-model";
import { contentText } from "@/lib/model/content";

let ws: Awaited<ReturnType<typeof tempWorkspace>>;
beforeEach(async () => {
  ws = await tempWorkspace({ "big.txt": "evidence ".repeat(400) });
});
afterEach(() => ws.cleanup());

const isMaster = (r: ModelRequest) => systemOf(r).startsWith(MASTER_PROMPT_MARKER);

/** A system model that summarises and condenses, with its own usage figures. */
const systemModel = () =>
  scriptedModel((req) => {
    if (systemOf(req) === COMPACT_SYSTEM_PROMPT)
      return { text: "Earlier: the user asked about files.", usage: { inputTokens: 500, outputTokens: 11 } };
    if (systemOf(req) === CONDENSE_SYSTEM_PROMPT)
      return { text: '{"summary":"Condensed finding."}', usage: { inputTokens: 300, outputTokens: 7 } };
    return { text: "?" };
  }, "system");

const oldTurn = (i: number): ChatTurn => ({
  turnId: `old${i}`,
  sessionId: "s1",
  prompt: `old question ${i} ${"padding ".repeat(100)}`,
  steps: [{ text: `old answer ${i} ${"padding ".repeat(100)}`, thinking: "", toolCalls: [] }],
  stats: emptyStats(),
  status: "completed",
  createdAt: "2026-01-01T00:00:00.000Z",
  endedAt: "2026-01-01T00:00:00.000Z",
});

describe("token budget", () => {
  it("compacts the master's older turns into a system-model summary before the request would exceed the budget", async () => {
    const model = scriptedModel(() => ({ text: "Fresh answer.", usage: { inputTokens: 40, outputTokens: 3 } }));
    const system = systemModel();
    const history = Array.from({ length: 12 }, (_, i) => oldTurn(i));
    const run = startTestTurn(
      { model, systemModel: system, workspaceDir: ws.dir, limits: { contextTokens: 2_500 } },
      "new question",
      history,
    );
    const result = await run.result;
    expect(result.status).toBe("completed");
    const request = model.requests[0]!;
    expect(request.messages.some((m) => m.role === "system" && m.content === `${SUMMARY_TAG}\nEarlier: the user asked about files.`)).toBe(
      true,
    );
    expect(request.messages.at(-1)).toEqual({ role: "user", content: "new question" });
    expect(estimateRequestTokens(request.messages, request.tools)).toBeLessThanOrEqual(2_500);
    // System work is counted apart from chat.
    expect(result.stats.chat).toEqual({ inputTokens: 40, outputTokens: 3 });
    expect(result.stats.system).toEqual({ inputTokens: 500, outputTokens: 11 });
  });

  it("re-injects a subagent's objective after its context is compacted", async () => {
    let reads = 0;
    const model = scriptedModel((req) => {
      if (isMaster(req)) {
        return toolResults(req.messages).length === 0
          ? {
              toolCalls: [
                {
                  id: "m1",
                  name: "subagent",
                  args: { agent: "explore", task: "Read big three times", objective: "Count the evidence words" },
                },
              ],
            }
          : { text: "ok" };
      }
      reads++;
      return reads < 4
        ? { toolCalls: [{ id: `r${reads}`, name: "read_note", args: { name: "big" } }] }
        : { text: "There is a lot of evidence." };
    });
    const run = startTestTurn({ model, systemModel: systemModel(), workspaceDir: ws.dir, limits: { contextTokens: 2_600 } }, "go");
    await run.result;
    const childRequests = model.requests.filter((r) => !isMaster(r));
    const late = childRequests.at(-1)!;
    const reinforcement = late.messages.find((m) => m.role === "user" && contentText(m.content).startsWith(OBJECTIVE_TAG));
    expect(reinforcement?.content).toContain("Count the evidence words");
    expect(late.messages.some((m) => m.role === "system" && m.content.startsWith(SUMMARY_TAG))).toBe(true);
    expect(childRequests[0]!.messages.some((m) => contentText(m.content).startsWith(OBJECTIVE_TAG))).toBe(false);
    expect(ofType(run.events, "subagent_completed")[0]!.stats.system.inputTokens).toBeGreaterThan(0);
  });

  it("condenses a long subagent result on the system model (level 2) and charges it as system usage", async () => {
    const model = scriptedModel((req) => {
      if (isMaster(req)) {
        return toolResults(req.messages).length === 0
          ? {
              toolCalls: [{ id: "m1", name: "subagent", args: { agent: "explore", task: "Write a lot" } }],
              usage: { inputTokens: 10, outputTokens: 1 },
            }
          : { text: "done", usage: { inputTokens: 10, outputTokens: 1 } };
      }
      return { text: "finding ".repeat(300), usage: { inputTokens: 20, outputTokens: 600 } };
    });
    const run = startTestTurn({ model, systemModel: systemModel(), workspaceDir: ws.dir, limits: { maxResultTokens: 100 } }, "go");
    const result = await run.result;
    const complete = ofType(run.events, "agent:complete")[0]!;
    expect(complete.response).toContain("Condensation: Level 2 (LLM summary)");
    expect(complete.response).toContain("Summary: Condensed finding.");
    expect(complete.response).not.toContain("finding finding finding");
    expect((await processOfRun(run, complete.runId)).response).toBe("finding ".repeat(300));
    expect(result.stats.system).toEqual({ inputTokens: 300, outputTokens: 7 });
    expect(result.stats.chat).toEqual({ inputTokens: 40, outputTokens: 602 });
  });
});
