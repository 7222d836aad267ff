import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONDENSE_SYSTEM_PROMPT } from "@/lib/agent/condense";
import { COMPACT_SYSTEM_PROMPT, SUMMARY_TAG } from "@/lib/context/compact";
import type { AgentEvent } from "@/lib/contracts";
import { SubagentConfigError } from "@/lib/agent/definitions";
import { MASTER_PROMPT_MARKER } from "@/lib/agent/prompts";
import type { ChatTurn, SubagentProcess } from "@/lib/contracts";
import { parseEnv } from "@/lib/env";
import { serializeTurn } from "@/lib/markup/serialize";
import { processInTurn } from "@/lib/turn/paths";
import {
  scriptedReply,
  startScriptedOpenAIServer,
  type ScriptedOpenAIServer,
  type ScriptedRequest,
} from "@/test/support/model/scripted-openai-server";
import { openSession, recordEvents, request, startHarness, waitFor, type Harness } from "@/test/support/server/app-harness";
import { buildRuntime } from "./build-runtime";

/**
 * A model per subagent, through the real wiring (buildRuntime from env and a definitions
 * file), the real server and database, and two real OpenAI-compatible HTTP servers: the
 * master's endpoint (which also serves the system model and a second model of the same
 * provider) and another endpoint with its own key. Each server must receive exactly the
 * requests meant for it, under the right model name and key; each run's cost is priced
 * with its own model's prices, and the turn's total adds those costs.
 */

const MASTER_KEY = "sk-master-0001";
const REVIEWER_KEY = "sk-reviewer-0002";
const LONG_REVIEW = `Review of the plan. ${"The release plan holds up; the risks are listed with owners. ".repeat(20)}`;

const isMaster = (r: ScriptedRequest) => String(r.body?.messages?.[0]?.content ?? "").startsWith(MASTER_PROMPT_MARKER);
const isCondense = (r: ScriptedRequest) => r.body?.messages?.[0]?.content === CONDENSE_SYSTEM_PROMPT;
const isCompact = (r: ScriptedRequest) => r.body?.messages?.[0]?.content === COMPACT_SYSTEM_PROMPT;
const toolMessages = (r: ScriptedRequest) => (r.body?.messages ?? []).filter((m: { role: string }) => m.role === "tool").length;
const call = (id: string, agent: string, task: string) => ({ id, name: "subagent", argumentChunks: [JSON.stringify({ agent, task })] });

/** The master's provider: the master, the system model (condensation) and "quick-model". */
function masterEndpoint(r: ScriptedRequest) {
  switch (r.body?.model) {
    case "master-model": {
      const last = r.body.messages.at(-1);
      if (String(r.body.messages.at(1)?.content).startsWith("Read big.txt")) {
        return last.role === "tool"
          ? scriptedReply({ text: ["Read."] })
          : scriptedReply({ toolCalls: [call("c-read", "reader", "Read big.txt three times")] });
      }
      if (last.role === "tool")
        return scriptedReply({ text: ["All three reported."], usage: { promptTokens: 2_000, completionTokens: 50 } });
      return scriptedReply({
        toolCalls: [
          call("c-review", "reviewer", "Review the release plan"),
          call("c-quick", "quick", "Count the risks"),
          call("c-local", "local", "Check the dates"),
        ],
        usage: { promptTokens: 1_000, completionTokens: 100 },
      });
    }
    case "system-model":
      if (isCompact(r)) return scriptedReply({ text: ["Read big.txt once so far."], usage: { promptTokens: 700, completionTokens: 10 } });
      return scriptedReply({
        text: [JSON.stringify({ summary: "The plan holds up.", conclusions: ["Risks have owners."] })],
        usage: { promptTokens: 500, completionTokens: 20 },
      });
    case "quick-model":
      return scriptedReply({ text: ["Three risks."], usage: { promptTokens: 100, completionTokens: 10 } });
    default:
      return scriptedReply({ text: [`unexpected model ${String(r.body?.model)}`] });
  }
}

/** Another provider: the reviewer's large model (with its own key) and a local model (no key). */
function otherEndpoint(r: ScriptedRequest) {
  switch (r.body?.model) {
    case "reviewer-large":
      return scriptedReply({ text: [LONG_REVIEW], usage: { promptTokens: 10_000, completionTokens: 5_000 } });
    case "reader-model":
      // Three reads of a big file, one per step: its context outgrows CONTEXT_TOKENS and is compacted.
      if (toolMessages(r) < 3 && !JSON.stringify(r.body.messages).includes(SUMMARY_TAG))
        return scriptedReply({
          toolCalls: [{ id: `read-${toolMessages(r)}`, name: "file_read", argumentChunks: ['{"path":"big.txt"}'] }],
          usage: { promptTokens: 1_000, completionTokens: 10 },
        });
      return scriptedReply({ text: ["It lists the tides."], usage: { promptTokens: 1_000, completionTokens: 10 } });
    case "local-small":
      return scriptedReply({ text: ["Dates are consistent."], usage: { promptTokens: 10, completionTokens: 1 } });
    default:
      return scriptedReply({ text: [`unexpected model ${String(r.body?.model)}`] });
  }
}

let masterServer: ScriptedOpenAIServer;
let otherServer: ScriptedOpenAIServer;
let dir: string;
let harness: Harness;
const warnings: string[] = [];

function envFor(subagentsFile: string, extra: Record<string, string> = {}) {
  return parseEnv({
    ...extra,
    MODEL: "master-model",
    SYSTEM_MODEL: "system-model",
    OPENAI_BASE_URL: masterServer.url,
    OPENAI_API_KEY: MASTER_KEY,
    MODEL_PRICE_INPUT: "1",
    MODEL_PRICE_OUTPUT: "2",
    MODEL_TIMEOUT_MS: "5000",
    MODEL_MAX_RETRIES: "0",
    MAX_RESULT_TOKENS: "100",
    WORKSPACE_DIR: dir,
    SUBAGENTS_FILE: subagentsFile,
  });
}

beforeAll(async () => {
  masterServer = await startScriptedOpenAIServer(masterEndpoint);
  otherServer = await startScriptedOpenAIServer(otherEndpoint);
  dir = await mkdtemp(path.join(tmpdir(), "delegate-models-"));
  const file = path.join(dir, "subagents.json");
  const base = { description: "d", systemPrompt: "Do the task and answer.", allowedTools: [] };
  await writeFile(
    file,
    JSON.stringify({
      subagents: [
        {
          ...base,
          name: "reviewer",
          model: {
            name: "reviewer-large",
            baseURL: otherServer.url,
            apiKeyEnv: "REVIEWER_KEY",
            prices: { inputPerMTok: 30, outputPerMTok: 60 },
            label: "Reviewer (large)",
          },
        },
        { ...base, name: "quick", model: { name: "quick-model" } },
        { ...base, name: "local", model: { name: "local-small", baseURL: otherServer.url, prices: { inputPerMTok: 0, outputPerMTok: 0 } } },
      ],
    }),
  );
  const { runtime } = buildRuntime(
    envFor(file),
    { warn: (msg, meta) => warnings.push(`${msg} ${JSON.stringify(meta)}`), info: () => undefined },
    (name) => (name === "REVIEWER_KEY" ? REVIEWER_KEY : undefined),
  );
  harness = await startHarness("subagent-models", { runner: runtime });
});
afterAll(async () => {
  await harness?.close();
  await masterServer?.close();
  await otherServer?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("a model per subagent, over two real OpenAI-compatible servers", () => {
  it("sends each run to its own endpoint and model with its own key, records its model, prices it at its own prices and adds the costs into the turn", async () => {
    const { socket, sessionId } = await openSession(harness);
    const events = recordEvents(socket);
    expect((await request(socket, "session:join", { sessionId })).ok).toBe(true);
    expect((await request(socket, "turn:send", { sessionId, text: "Review the release plan" })).ok).toBe(true);
    await waitFor(() => events.some((e) => e.type === "turn:ended"), 20_000, "turn end");
    await (await harness.app.registry.peek(sessionId))?.drain();
    const [turn] = (await harness.store.loadHistory(sessionId)) as [ChatTurn];
    expect(turn.status).toBe("completed");

    // The master's endpoint: the master, condensation on the system model, and "quick", all under the master's key.
    const auth = (r: ScriptedRequest) => r.headers.authorization;
    expect(masterServer.requests.map((r) => r.body.model).sort()).toEqual(["master-model", "master-model", "quick-model", "system-model"]);
    expect(masterServer.requests.every((r) => auth(r) === `Bearer ${MASTER_KEY}`)).toBe(true);
    expect(masterServer.requests.filter(isMaster)).toHaveLength(2);
    const condensation = masterServer.requests.filter(isCondense);
    expect(condensation.map((r) => r.body.model)).toEqual(["system-model"]);
    expect(JSON.stringify(condensation[0]!.body)).toContain("The release plan holds up");

    // The other endpoint: the reviewer with its own key, and "local", which names no key variable
    // and so gets none — the master's key never leaves for another endpoint.
    const reviewer = otherServer.requests.filter((r) => r.body.model === "reviewer-large");
    expect(reviewer).toHaveLength(1);
    expect(auth(reviewer[0]!)).toBe(`Bearer ${REVIEWER_KEY}`);
    const local = otherServer.requests.filter((r) => r.body.model === "local-small");
    expect(local).toHaveLength(1);
    expect(JSON.stringify(otherServer.requests.map((r) => r.headers))).not.toContain(MASTER_KEY);
    expect(otherServer.requests).toHaveLength(2);
    expect(otherServer.requests.some(isCondense)).toBe(false);

    // Each process records the model that ran it, as stored in MongoDB.
    const run = (callId: string): SubagentProcess => turn.steps[0]!.toolCalls.find((c) => c.callId === callId)!.subagent!;
    const [review, quick, localRun] = [run("c-review"), run("c-quick"), run("c-local")];
    expect(review.model).toBe("Reviewer (large)");
    expect(quick.model).toBe(`quick-model via ${new URL(masterServer.url).host}`);
    expect(localRun.model).toBe(`local-small via ${new URL(otherServer.url).host}`);
    expect(processInTurn(turn, review.runId)).toEqual(review);
    expect(serializeTurn(turn)).toContain('model="Reviewer (large)"');

    // Costs: each run at its own prices; the turn adds them (never re-pricing tokens at the master's prices).
    expect(review.stats.chat).toEqual({ inputTokens: 10_000, outputTokens: 5_000 });
    expect(review.stats.cost).toBeCloseTo((10_000 * 30 + 5_000 * 60) / 1e6, 10); // $0.60
    expect(quick.stats.cost).toBe(0); // no prices known for quick-model
    expect(localRun.stats.cost).toBe(0);
    const masterChat = (3_000 * 1 + 150 * 2) / 1e6;
    const condense = (500 * 1 + 20 * 2) / 1e6;
    expect(turn.stats.chat).toEqual({ inputTokens: 3_000 + 10_000 + 100 + 10, outputTokens: 150 + 5_000 + 10 + 1 });
    expect(turn.stats.system).toEqual({ inputTokens: 500, outputTokens: 20 });
    expect(turn.stats.cost).toBeCloseTo(masterChat + condense + 0.6, 10);
    // What the master read: the condensed review with the reviewer's own cost in its footer.
    const returned = turn.steps[0]!.toolCalls.find((c) => c.callId === "c-review")!.response;
    expect(returned).toContain("Condensation: Level 2 (LLM summary)");
    expect(returned).toContain("Cost: $0.6000");

    // The operator was told which own-model subagents have no prices.
    expect(warnings.join("\n")).toMatch(/without prices.*"quick"/);
    expect(warnings.join("\n")).not.toMatch(/"local"|"reviewer"/);
  });

  it("compacts a subagent's context on the system model, not on the subagent's own endpoint", async () => {
    await writeFile(
      path.join(dir, "big.txt"),
      Array.from({ length: 48 }, (_, i) => `line ${i}: high water ${i} at the harbour mouth, low water later`).join("\n"),
    );
    const file = path.join(dir, "reader.json");
    const reader = {
      name: "reader-model",
      baseURL: otherServer.url,
      apiKeyEnv: "REVIEWER_KEY",
      prices: { inputPerMTok: 30, outputPerMTok: 60 },
    };
    await writeFile(
      file,
      JSON.stringify([
        { name: "reader", description: "d", systemPrompt: "Read what you are told.", allowedTools: ["file_read"], model: reader },
      ]),
    );
    const { runtime } = buildRuntime(envFor(file, { CONTEXT_TOKENS: "2000" }), { warn: () => undefined, info: () => undefined }, (name) =>
      name === "REVIEWER_KEY" ? REVIEWER_KEY : undefined,
    );
    const events: AgentEvent[] = [];
    const before = { master: masterServer.requests.length, other: otherServer.requests.length };
    const result = await runtime.startTurn({
      sessionId: "s",
      turnId: "t-compact",
      prompt: "Read big.txt, please",
      history: [],
      publish: (e) => events.push(e),
    }).done;
    expect(result.status).toBe("completed");

    const onMaster = masterServer.requests.slice(before.master);
    const onOther = otherServer.requests.slice(before.other);
    expect(onOther.length).toBe(4);
    expect(onOther.every((r) => r.body.model === "reader-model" && !isCompact(r))).toBe(true);
    const compaction = onMaster.filter(isCompact);
    expect(compaction).toHaveLength(1);
    expect(compaction[0]!.body.model).toBe("system-model");
    expect(compaction[0]!.headers.authorization).toBe(`Bearer ${MASTER_KEY}`);
    // The reader's compaction is system usage, priced at the system model's prices ($1/$2), its own reads at $30/$60.
    const ended = events.find((e): e is Extract<AgentEvent, { type: "subagent_completed" }> => e.type === "subagent_completed")!;
    expect(ended.stats.system).toEqual({ inputTokens: 700, outputTokens: 10 });
    expect(ended.stats.cost).toBeCloseTo((4_000 * 30 + 40 * 60 + 700 * 1 + 10 * 2) / 1e6, 10);
  });

  it("refuses to start when a definition's apiKeyEnv names a variable that is not set, naming it", async () => {
    const file = path.join(dir, "missing-key.json");
    await writeFile(
      file,
      JSON.stringify([
        {
          name: "reviewer",
          description: "d",
          systemPrompt: "p",
          model: { name: "reviewer-large", baseURL: otherServer.url, apiKeyEnv: "REVIEWER_KEY" },
        },
      ]),
    );
    const build = () =>
      buildRuntime(envFor(file), { warn: () => undefined, info: () => undefined }, (name) => (name === "REVIEWER_KEY" ? "  " : undefined));
    expect(build).toThrow(SubagentConfigError);
    expect(build).toThrow("reviewer: model.apiKeyEnv names REVIEWER_KEY, which is not set");
  });

  it("names the definitions file when it is not JSON or cannot be read", async () => {
    const file = path.join(dir, "broken.json");
    await writeFile(file, "{ subagents: [");
    expect(() => buildRuntime(envFor(file), { warn: () => undefined, info: () => undefined })).toThrow(
      `SUBAGENTS_FILE ${file} is not valid JSON`,
    );
    const missing = path.join(dir, "nope.json");
    expect(() => buildRuntime(envFor(missing), { warn: () => undefined, info: () => undefined })).toThrow(
      `SUBAGENTS_FILE ${missing} cannot be read`,
    );
  });
});
