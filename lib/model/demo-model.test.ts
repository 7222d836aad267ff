import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentEventSchema, type AgentEvent } from "@/lib/contracts";
import { BUILTIN_DEFINITIONS } from "@/lib/agent/definitions";
import { CONDENSE_SYSTEM_PROMPT, renderCondensed } from "@/lib/agent/condense";
import { createAgentRuntime } from "@/lib/agent/runtime";
import { masterText } from "@/test/support/agent/harness";
import { COMPACT_SYSTEM_PROMPT } from "@/lib/context/compact";
import { createWorkspaceTools } from "@/lib/tools";
import { chunks, createDemoModel, firstTokenDelay } from "./demo-model";
import type { ChatModel, ModelRequest, ModelStreamEvent } from "./types";
import { dataOf, isData } from "@/test/support/turn/agent-data";

let workspace: string;
const TRIAGE_ROW = "| 41 | MLLW predictions too high by MSL (offset applied twice) | critical | 0.5.0 | [Mara] | fix in progress |";
const RELEASE_ROW = "| release | **2026-12-15** | PyPI + GitHub release |";

beforeAll(async () => {
  workspace = await mkdtemp(join(tmpdir(), "delegate-demo-"));
  const files: Record<string, string> = {
    "notes/bug-triage.md": `# Bug triage\n\nOpen bugs, newest first.\n\n| # | title | severity | milestone | owner | state |\n|---|---|---|---|---|---|\n${TRIAGE_ROW}\n`,
    "docs/release-plan.md": `# Release plan: 0.5.0\n\n| milestone | date | notes |\n|---|---|---|\n${RELEASE_ROW}\n`,
    "src/app.py": "def main():\n    return 1  # FIXME(#41): the bug lives here\n",
  };
  for (const [name, text] of Object.entries(files)) {
    await mkdir(dirname(join(workspace, name)), { recursive: true });
    await writeFile(join(workspace, name), text);
  }
});
afterAll(() => rm(workspace, { recursive: true, force: true }));

async function collect(model: ChatModel, request: ModelRequest): Promise<ModelStreamEvent[]> {
  const out: ModelStreamEvent[] = [];
  for await (const e of model.stream(request)) out.push(e);
  return out;
}

function runTurn(prompt: string, options: { chunkDelayMs?: number; onEvent?: (e: AgentEvent, cancel: () => void) => void } = {}) {
  const runtime = createAgentRuntime({
    model: createDemoModel({ chunkDelayMs: options.chunkDelayMs ?? 0 }),
    tools: createWorkspaceTools(),
    definitions: [...BUILTIN_DEFINITIONS],
    workspaceDir: workspace,
    limits: {
      maxSpawnDepth: 3,
      maxChildrenPerAgent: 5,
      maxResultTokens: 4_000,
      subagentTimeoutMs: 20_000,
      maxSteps: 10,
      contextTokens: 100_000,
      resultFooter: true,
      turnTimeoutMs: 600_000,
    },
  });
  const events: AgentEvent[] = [];
  const handle = runtime.startTurn({
    sessionId: "s",
    turnId: "t",
    prompt,
    history: [],
    publish: (e) => {
      events.push(agentEventSchema.parse(e));
      options.onEvent?.(e, () => handle.cancel());
    },
  });
  return { events, done: handle.done };
}

describe("offline demo model", () => {
  it("is labelled as the offline demo and answers a greeting directly with streamed markdown", async () => {
    const model = createDemoModel({ chunkDelayMs: 0 });
    expect(model).toMatchObject({ label: "Offline demo model", isDemo: true });
    const request: ModelRequest = {
      messages: [
        { role: "system", content: "You are Delegate" },
        { role: "user", content: "hello" },
      ],
    };
    const events = await collect(model, request);
    const texts = events.flatMap((e) => (e.type === "text" ? [e.text] : []));
    expect(texts.length).toBeGreaterThan(10);
    expect(texts.every((t) => t.trim().split(/\s+/).length <= 4)).toBe(true);
    const text = texts.join("");
    expect(text).toMatch(/^Hello! I'm the \*\*offline demo model\*\*/);
    expect(text).toContain("|---|---|");
    expect(text).toContain("```bash");
    expect(events.some((e) => e.type === "tool_call")).toBe(false);
    expect(events.at(-2)).toMatchObject({ type: "usage" });
    expect(events.at(-1)).toEqual({ type: "done", finishReason: "stop" });
    // Deterministic: the same request streams the same thing.
    expect(await collect(model, request)).toEqual(events);
  });

  it("chunks keep every character", () => {
    const text = "a  b\n\nc d e f g ```code```";
    expect(chunks(text, 3).join("")).toBe(text);
  });

  it("investigate X and Y: two parallel explore subagents read the real workspace and the answer quotes real lines", async () => {
    const { events, done } = runTurn("investigate the open bugs and the release plan");
    const result = await done;
    expect(result.status).toBe("completed");
    const calls = dataOf(events, "tool_call", "master");
    expect(calls).toHaveLength(2);
    expect(calls.map((c) => JSON.parse(c.parameters))).toEqual([
      expect.objectContaining({ agent: "explore", task: "the open bugs" }),
      expect.objectContaining({ agent: "explore", task: "the release plan" }),
    ]);
    const started = events.filter((e) => e.type === "subagent_started");
    expect(started.map((s) => [s.parentRunId, s.depth])).toEqual([
      [null, 1],
      [null, 1],
    ]);
    // Parallel: both were running before either finished.
    const firstEnd = events.findIndex((e) => e.type === "subagent_completed");
    expect(events.indexOf(started[1]!)).toBeLessThan(firstEnd);
    for (const s of started) {
      const toolCalls = events.flatMap((e) =>
        e.type === "subagent_data" && e.runId === s.runId && e.data.kind === "tool_call" ? [e.data] : [],
      );
      expect(toolCalls.map((c) => c.name)).toEqual(["list_files", "grep", "file_read"]);
      // list_files and grep are asked for in one step, file_read in the next.
      expect(toolCalls.map((c) => c.step)).toEqual([0, 0, 1]);
      const results = events.flatMap((e) =>
        e.type === "subagent_data" && e.runId === s.runId && e.data.kind === "tool_result" ? [e.data] : [],
      );
      expect(results.every((r) => r.status === "success")).toBe(true);
    }
    const reads = events.flatMap((e) =>
      e.type === "subagent_data" && e.data.kind === "tool_call" && e.data.name === "file_read" ? [JSON.parse(e.data.parameters).path] : [],
    );
    expect(reads.sort()).toEqual(["docs/release-plan.md", "notes/bug-triage.md"]);
    // A short synthesis: one cited line per subagent with its key line, no run id, no pasted response.
    const answer = masterText(result.turn);
    expect(answer).toContain(
      "- The explore agent on *the open bugs* found `notes/bug-triage.md`, line 7: “#41 · MLLW predictions too high by MSL (offset applied twice) · critical · 0.5.0 · [Mara] · fix in progress”",
    );
    expect(answer).toContain(
      "- The explore agent on *the release plan* found `docs/release-plan.md`, line 5: “release · 2026-12-15 · PyPI + GitHub release”",
    );
    expect(answer).toContain("Status: 2 Completed.");
    expect(answer).not.toContain("```");
    for (const s of started) expect(answer).not.toContain(s.runId.slice(0, 8));
    expect(answer).not.toMatch(/explore-[0-9a-z]{8}/);
    // Each panel still holds the whole answer, with the lines the subagent read.
    const responses = events.flatMap((e) => (e.type === "subagent_completed" ? [e.response] : []));
    expect(responses.join("\n")).toContain(
      "7: | 41 | MLLW predictions too high by MSL (offset applied twice) | critical | 0.5.0 | [Mara] | fix in progress |",
    );
  });

  it("deep dive: a general child spawns explore grandchildren", async () => {
    const { events, done } = runTurn("deep dive into the release plan");
    const result = await done;
    expect(result.status).toBe("completed");
    const started = events.filter((e) => e.type === "subagent_started");
    expect(started.map((s) => [s.name, s.depth])).toEqual([
      ["general", 1],
      ["explore", 2],
    ]);
    expect(started[1]!.parentRunId).toBe(started[0]!.runId);
    // The general's own cited line for its grandchild is kept, nested under the general's.
    const answer = masterText(result.turn);
    expect(answer).toContain(
      "- The general agent on *the release plan* split it into one part, read by an explore agent:\n  - The explore agent on *the release plan* found `docs/release-plan.md`, line 5:",
    );
    expect(answer).not.toMatch(/(general|explore)-[0-9a-z]{8}/);
  });

  it("serves condensation with structured JSON and compaction with a summary", async () => {
    const model = createDemoModel({ chunkDelayMs: 0 });
    const text = async (request: ModelRequest) =>
      (await collect(model, request)).flatMap((e) => (e.type === "text" ? [e.text] : [])).join("");
    const condensed = await text({
      messages: [
        { role: "system", content: CONDENSE_SYSTEM_PROMPT },
        {
          role: "user",
          content:
            "Stay under 100 tokens.\n\nResult to condense:\nThe plan ships 0.5.0.\n- release on 2026-12-15\nsee docs/release-plan.md",
        },
      ],
    });
    expect(JSON.parse(condensed)).toMatchObject({ conclusions: ["release on 2026-12-15"], filePaths: ["docs/release-plan.md"] });
    expect(renderCondensed(condensed)).toMatch(/^Summary: The plan ships 0\.5\.0\./);
    const summary = await text({
      messages: [
        { role: "system", content: COMPACT_SYSTEM_PROMPT },
        { role: "user", content: "user: what about bugs?\ntool grep result: x" },
      ],
    });
    expect(summary).toBe("Earlier the user asked: “what about bugs?”. Tools used: grep.");
  });

  it("streams slowly enough to watch, and stops promptly when the turn is cancelled", async () => {
    let tokens = 0;
    const { done } = runTurn("hello", {
      chunkDelayMs: 40,
      onEvent: (e, cancel) => {
        if (isData(e, "token") && e.type === "turn:data" && ++tokens === 2) cancel();
      },
    });
    const result = await done;
    expect(result.status).toBe("cancelled");
    expect(tokens).toBe(2);
    expect(masterText(result.turn).length).toBeGreaterThan(0);
    expect(masterText(result.turn).length).toBeLessThan(60);
  });

  describe("pace", () => {
    it("each reply starts after about the configured time to first token, the same for the same request, different across requests", async () => {
      const hello: ModelRequest = {
        messages: [
          { role: "system", content: "You are Delegate" },
          { role: "user", content: "hello" },
        ],
      };
      const other: ModelRequest = {
        messages: [
          { role: "system", content: "You are Delegate" },
          { role: "user", content: "hello again" },
        ],
      };
      const timeToFirst = async (model: ChatModel, request: ModelRequest) => {
        const started = performance.now();
        for await (const _ of model.stream(request)) return performance.now() - started;
        throw new Error("no event");
      };
      const paced = createDemoModel({ chunkDelayMs: 0, replyDelayMs: 200 });
      const waited = await timeToFirst(paced, hello);
      expect(waited).toBeGreaterThanOrEqual(firstTokenDelay(hello, 200) - 5);
      expect(firstTokenDelay(hello, 200)).toBe(firstTokenDelay(hello, 200));
      expect(firstTokenDelay(hello, 200)).not.toBe(firstTokenDelay(other, 200));
      for (const r of [hello, other]) {
        expect(firstTokenDelay(r, 200)).toBeGreaterThanOrEqual(100);
        expect(firstTokenDelay(r, 200)).toBeLessThanOrEqual(300);
      }
      expect(await timeToFirst(createDemoModel({ chunkDelayMs: 0 }), hello)).toBeLessThan(50);
    });
  });
});
