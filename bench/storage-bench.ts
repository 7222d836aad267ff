import { isDeepStrictEqual } from "node:util";
import type { Connection } from "mongoose";
import { BUILTIN_DEFINITIONS } from "@/lib/agent/definitions";
import { MASTER_PROMPT_MARKER } from "@/lib/agent/prompts";
import { createAgentRuntime } from "@/lib/agent/runtime";
import { createOpenAIModel } from "@/lib/model/openai-adapter";
import { createWorkspaceTools } from "@/lib/tools";
import type { Models } from "@/models";
import type { ChatStore } from "@/server/data/store";
import { DroneSession } from "@/server/sessions/drone-session";
import {
  scriptedReply,
  startScriptedOpenAIServer,
  type ScriptedRequest,
  type ScriptedResponse,
} from "@/test/support/model/scripted-openai-server";
import { meterWrites, storedBytes } from "@/test/support/server/write-meter";
import { round } from "./stats";

/**
 * Benchmark: bytes written to MongoDB per turn against the bytes the turn finally stores.
 * One real turn through the agent runtime and the OpenAI adapter, talking HTTP to a
 * scripted model server that streams at a set rate: the master spawns `subagents`
 * subagents, each thinks and answers `tokensEach` tokens at `tokensPerSecond` in total,
 * then the master answers. Bytes are counted from the driver's command monitoring (BSON of
 * each inserted document and each update's filter and update); stored bytes are the BSON
 * of every document the session holds at the end.
 */
export interface StorageCase {
  subagents: number;
  tokensEach: number;
  /** Tokens per second over all subagents (each thinks, then answers, at its share). */
  tokensPerSecond: number;
}

export const STORAGE_FULL: StorageCase = { subagents: 5, tokensEach: 2_000, tokensPerSecond: 1_000 };
export const STORAGE_SMOKE: StorageCase = { subagents: 2, tokensEach: 100, tokensPerSecond: 1_000 };

export interface StorageResult extends StorageCase {
  seconds: number;
  writtenBytes: number;
  storedBytes: number;
  /** writtenBytes ÷ storedBytes (the target is at most 2). */
  ratio: number;
  writtenByCollection: Record<string, number>;
  readBackExact: boolean;
}

const TOKEN = "word ";
/** Tokens per chunk the scripted server sends between pauses. */
const PER_CHUNK = 5;

export async function runStorageBench(
  db: { connection: Connection; models: Models; store: ChatStore },
  c: StorageCase,
): Promise<StorageResult> {
  const perSubagent = c.tokensPerSecond / c.subagents;
  const paced = (kind: "reasoning" | "text"): ScriptedResponse => {
    const reply = scriptedReply({
      [kind]: Array.from({ length: c.tokensEach }, () => TOKEN),
      usage: { promptTokens: 50, completionTokens: c.tokensEach },
    });
    if (reply.type !== "stream") return reply;
    const steps: typeof reply.steps = [];
    let n = 0;
    for (const step of reply.steps) {
      steps.push(step);
      if ("delta" in step && ++n % PER_CHUNK === 0) steps.push({ delayMs: (PER_CHUNK / perSubagent) * 1000 });
    }
    return { ...reply, steps };
  };
  const model = await startScriptedOpenAIServer((req: ScriptedRequest) => {
    const messages: { role: string; content?: string }[] = req.body?.messages ?? [];
    const master = (messages[0]?.content ?? "").includes(MASTER_PROMPT_MARKER);
    const last = messages.at(-1);
    if (master && last?.role === "tool")
      return scriptedReply({ text: Array.from({ length: 200 }, () => TOKEN), usage: { promptTokens: 500, completionTokens: 200 } });
    if (master) {
      return scriptedReply({
        toolCalls: Array.from({ length: c.subagents }, (_, i) => ({
          id: `spawn${i}`,
          name: "subagent",
          argumentChunks: [JSON.stringify({ agent: "explore", task: `part ${i + 1}` })],
        })),
      });
    }
    // A subagent: the first request thinks aloud and answers in one streamed reply.
    const reply = paced("text");
    const thinking = paced("reasoning");
    return reply.type === "stream" && thinking.type === "stream"
      ? { ...reply, steps: [...thinking.steps.filter((s) => "delta" in s || "delayMs" in s), ...reply.steps] }
      : reply;
  });
  const runtime = createAgentRuntime({
    model: createOpenAIModel({ baseURL: model.url, apiKey: "bench", model: "scripted", timeoutMs: 120_000, maxRetries: 0 }),
    tools: createWorkspaceTools(),
    definitions: [...BUILTIN_DEFINITIONS],
    workspaceDir: `${process.cwd()}/workspace`,
    limits: {
      maxSpawnDepth: 3,
      maxChildrenPerAgent: 5,
      maxResultTokens: 4000,
      subagentTimeoutMs: 300_000,
      maxSteps: 10,
      contextTokens: 1_000_000,
      resultFooter: true,
      turnTimeoutMs: 600_000,
    },
  });
  try {
    const { sessionId } = await db.store.createSession("bench-storage", "Storage bench");
    const meter = meterWrites(db.connection);
    const started = performance.now();
    const drone = await DroneSession.open({ store: db.store, sessionId, title: "Storage bench", runner: runtime, relay: () => undefined });
    const turnId = await drone.startTurn("Split the work and report back.");
    await drone.settled();
    const seconds = (performance.now() - started) / 1000;
    meter.stop();
    const [stored] = await db.store.loadHistory(sessionId);
    const kept = await storedBytes(db.models, sessionId);
    const written = meter.total();
    return {
      ...c,
      seconds: round(seconds, 1),
      writtenBytes: written,
      storedBytes: kept,
      ratio: round(written / kept, 2),
      writtenByCollection: meter.byCollection(),
      readBackExact: isDeepStrictEqual(stored, drone.liveTurn(turnId)),
    };
  } finally {
    await model.close();
  }
}
