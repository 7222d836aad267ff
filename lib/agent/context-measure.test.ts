import { cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentEvent, ChatTurn } from "@/lib/contracts";
import { estimateMessagesTokens, estimateRequestTokens, estimateTokens } from "@/lib/context/tokens";
import { createDemoModel } from "@/lib/model/demo-model";
import type { ChatModel, ModelRequest } from "@/lib/model/types";
import { createWorkspaceTools } from "@/lib/tools";
import { BUILTIN_DEFINITIONS } from "./definitions";
import { MASTER_PROMPT_MARKER } from "./prompts";
import { createAgentRuntime } from "./runtime";
import { processInTurn } from "@/lib/turn/paths";
import { contentText } from "@/lib/model/content";

/**
 * What the clean-context principle buys, measured: a 20-turn session on a copy of the
 * sample workspace, driven by the demo model, with 10 subagent runs (five "investigate X
 * and Y" turns). Compares the master's context with the subagents' full transcripts.
 */

let workspace: string;
beforeAll(async () => {
  workspace = await mkdtemp(join(tmpdir(), "delegate-measure-"));
  await cp(resolve("workspace"), workspace, { recursive: true });
});
afterAll(() => rm(workspace, { recursive: true, force: true }));

const RESEARCH = [
  "investigate the open bugs and the release plan",
  "compare the architecture and the decisions",
  "investigate the changelog and the contributing guide",
  "research the stations and the harmonics",
  "look into the weekly sync and the retro",
];
const CHAT = ["hello", "thanks", "what can you do?", "ok", "good morning", "nice"];

describe("context budget of a 20-turn session (demo model)", () => {
  it("keeps the master's context far smaller than the subagents' transcripts", async () => {
    const requests: ModelRequest[] = [];
    const demo = createDemoModel({ chunkDelayMs: 0 });
    const model: ChatModel = { ...demo, stream: (r) => (requests.push(r), demo.stream(r)) };
    const runtime = createAgentRuntime({
      model,
      tools: createWorkspaceTools(),
      definitions: [...BUILTIN_DEFINITIONS],
      workspaceDir: workspace,
      limits: {
        maxSpawnDepth: 3,
        maxChildrenPerAgent: 5,
        maxResultTokens: 4_000,
        subagentTimeoutMs: 30_000,
        maxSteps: 10,
        contextTokens: 100_000,
        resultFooter: true,
        turnTimeoutMs: 600_000,
      },
    });
    const history: ChatTurn[] = [];
    const allEvents: AgentEvent[] = [];
    for (let i = 0; i < 20; i++) {
      const prompt = i % 4 === 1 ? RESEARCH[(i - 1) / 4]! : CHAT[i % CHAT.length]!;
      const events: AgentEvent[] = [];
      const handle = runtime.startTurn({ sessionId: "s", turnId: `t${i}`, prompt, history: [...history], publish: (e) => events.push(e) });
      const done = await handle.done;
      expect(done.status).toBe("completed");
      history.push(done.turn);
      allEvents.push(...events);
    }

    const completes = allEvents.filter((e) => e.type === "agent:complete");
    expect(completes).toHaveLength(10);
    const master = requests.filter((r) => contentText(r.messages[0]?.content ?? "").startsWith(MASTER_PROMPT_MARKER));
    const lastMaster = master.at(-1)!;
    const masterContext = estimateRequestTokens(lastMaster.messages, lastMaster.tools);
    const subagentResultsInMaster = estimateMessagesTokens(lastMaster.messages.filter((m) => m.role === "tool"));

    // A subagent's full transcript: its last request (everything it read) plus its answer.
    const byRun = new Map<string, ModelRequest>();
    for (const r of requests) {
      const runId = /Run id: (\S+)/.exec(contentText(r.messages[0]?.content ?? ""))?.[1];
      if (runId) byRun.set(runId, r);
    }
    expect(byRun.size).toBe(10);
    const transcripts = completes.map((c) => {
      const last = byRun.get(c.runId)!;
      const process = history.map((t) => processInTurn(t, c.runId)).find((p) => p !== undefined)!;
      return estimateRequestTokens(last.messages, last.tools) + estimateTokens(process.response);
    });
    const transcriptTotal = transcripts.reduce((a, b) => a + b, 0);
    const cleanResults = completes.reduce((n, c) => n + estimateTokens(c.response), 0);

    const figures = {
      turns: 20,
      subagentRuns: completes.length,
      masterContextTokensAtTurn20: masterContext,
      ofWhichSubagentResults: subagentResultsInMaster,
      subagentFullTranscriptTokens: transcriptTotal,
      subagentTranscriptTokensPerRun: Math.round(transcriptTotal / transcripts.length),
      cleanResultTokensTotal: cleanResults,
      ratioTranscriptsToResults: Number((transcriptTotal / cleanResults).toFixed(2)),
      // For comparison: the same master context had the transcripts entered it instead.
      masterContextIfTranscriptsLeaked: masterContext - subagentResultsInMaster + transcriptTotal,
    };
    console.log(`context budget figures: ${JSON.stringify(figures, null, 2)}`);

    expect(JSON.stringify(lastMaster.messages)).not.toMatch(/Plan: list the workspace|"recursive":true/);
    expect(subagentResultsInMaster).toBeLessThan(transcriptTotal / 2);
    expect(masterContext).toBeLessThan(transcriptTotal);
  }, 120_000);
});
