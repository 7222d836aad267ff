import mongoose from "mongoose";
import { BUILTIN_DEFINITIONS } from "@/lib/agent/definitions";
import { DEMO_PROMPTS } from "@/lib/agent/demo/prompts";
import { createAgentRuntime } from "@/lib/agent/runtime";
import type { ChatTurn } from "@/lib/contracts";
import { createDemoModel } from "@/lib/model/demo-model";
import { createWorkspaceTools } from "@/lib/tools";
import { toolCallRecordId } from "@/server/data/event-store";
import { importSessionFile, parseSessionFile } from "@/server/export/session-import";
import { exportSession } from "@/server/export/session-export";
import { DroneSession } from "@/server/sessions/drone-session";
import type { BenchDatabase } from "./bench-database";
import { generateHistory, insertHistory } from "./seed-session";
import { round } from "./stats";

/**
 * The audit features' figures. (a) What the model-call records cost: real turns of the demo
 * model through a DroneSession (five subagents, then a deep dive, then a follow-up, so the
 * master's transcript grows), each request's size as sent against the BSON the session's
 * records take, messages kept once. (b) Exporting a large chat: a seeded session of about
 * `exportMb` MB (long tool outputs kept whole beside their previews), streamed as a
 * session file, with the time and the heap it took over what was in use before; then
 * the same file imported as a new chat.
 */
export interface AuditCase {
  turns: number;
  exportMb: number;
}
export const AUDIT_FULL: AuditCase = { turns: 3, exportMb: 50 };
export const AUDIT_SMOKE: AuditCase = { turns: 1, exportMb: 1 };

export interface AuditResult {
  modelCalls: {
    turns: number;
    calls: number;
    /** Sum of every request (messages + tools) and reply as JSON: storing each request whole. */
    sentBytes: number;
    /** BSON of the session's ModelCall and ModelBlob documents. */
    storedBytes: number;
    storedPerTurnKiB: number;
    /** The rest of the chat's stored documents (turns, runs, calls, texts), for scale. */
    chatBytes: number;
  };
  export: {
    fileMb: number;
    turns: number;
    seconds: number;
    /** Heap in use at the peak of the export, above what was in use before it (MB). */
    peakHeapMb: number;
    importSeconds: number;
    importExact: boolean;
  };
}

const size = (doc: object) => mongoose.mongo.BSON.calculateObjectSize(doc as mongoose.mongo.Document);

export async function runAuditBench(db: BenchDatabase, c: AuditCase): Promise<AuditResult> {
  return { modelCalls: await modelCallCost(db, c.turns), export: await exportLarge(db, c.exportMb) };
}

async function modelCallCost(db: BenchDatabase, turns: number): Promise<AuditResult["modelCalls"]> {
  const runtime = createAgentRuntime({
    model: createDemoModel({ chunkDelayMs: 0, replyDelayMs: 0 }),
    tools: createWorkspaceTools(),
    definitions: [...BUILTIN_DEFINITIONS],
    workspaceDir: `${process.cwd()}/workspace`,
    limits: {
      maxSpawnDepth: 3,
      maxChildrenPerAgent: 5,
      maxResultTokens: 4000,
      subagentTimeoutMs: 300_000,
      maxSteps: 10,
      contextTokens: 100_000,
      resultFooter: true,
      turnTimeoutMs: 600_000,
    },
  });
  const { sessionId } = await db.store.createSession("bench-audit", "Audit bench");
  const drone = await DroneSession.open({ store: db.store, sessionId, title: "Audit bench", runner: runtime, relay: () => undefined });
  const pick = (word: string) => DEMO_PROMPTS.find((p) => p.prompt.includes(word))!.prompt;
  const prompts = [pick("Compare"), pick("Deep dive"), pick("Investigate")];
  const turnIds: string[] = [];
  for (let i = 0; i < turns; i++) {
    turnIds.push(await drone.startTurn(prompts[i % prompts.length]!));
    await drone.settled();
  }
  await drone.drain();
  let sentBytes = 0;
  let calls = 0;
  for (const turnId of turnIds) {
    for (const record of await db.store.loadTurnModelCalls(sessionId, turnId)) {
      calls++;
      sentBytes += JSON.stringify(record.request).length + JSON.stringify(record.response).length;
    }
  }
  const storedBytes = await bytesOf([db.models.ModelCall, db.models.ModelBlob], sessionId);
  const chatBytes = await bytesOf(
    [db.models.Turn, db.models.SubagentRun, db.models.ToolCall, db.models.ToolOutput, db.models.TextChunk],
    sessionId,
  );
  return { turns, calls, sentBytes, storedBytes, storedPerTurnKiB: round(storedBytes / turns / 1024, 1), chatBytes };
}

type Findable = { find(filter: object): { lean(): PromiseLike<unknown> } };

async function bytesOf(models: Findable[], sessionId: string): Promise<number> {
  let bytes = 0;
  for (const model of models) for (const doc of (await model.find({ sessionId }).lean()) as object[]) bytes += size(doc);
  return bytes;
}

/** A turn without its ids (an import gives new ones): what a person sees of it. */
const withoutIds = (turn: ChatTurn) =>
  JSON.stringify(turn, (key, value: unknown) =>
    ["turnId", "sessionId", "runId", "parentRunId", "retryOf"].includes(key) ? undefined : value,
  );

/** Long tool outputs, each kept whole in chunks beside its preview, as the event store keeps them. */
const OUTPUT_CHARS = 200_000;

async function exportLarge(db: BenchDatabase, megabytes: number): Promise<AuditResult["export"]> {
  const outputs = Math.max(1, Math.round((megabytes * 1024 * 1024) / OUTPUT_CHARS));
  const turns = Math.max(10, Math.min(500, outputs));
  const { sessionId } = await db.store.createSession("bench-export", "Export bench");
  const history = generateHistory({ sessionId, turns, subagents: Math.round(turns / 2), nestedToolCalls: turns * 4, seed: 3 });
  // Plain calls of subagents get a long whole output, in turn order, until there are `outputs` of them.
  const long: { turn: ChatTurn; runId: string; callId: string }[] = [];
  for (const turn of history) {
    for (const call of turn.steps.flatMap((s) => s.toolCalls)) {
      const run = call.subagent;
      if (!run) continue;
      for (const plain of run.steps.flatMap((s) => s.toolCalls).filter((c) => !c.subagent)) {
        if (long.length >= outputs) break;
        plain.responseSize = OUTPUT_CHARS;
        long.push({ turn, runId: run.runId, callId: plain.callId });
      }
    }
  }
  await insertHistory(db.models, history);
  const line = "0123456789 the quick brown fox jumps over the lazy dog; ".repeat(Math.ceil(OUTPUT_CHARS / 56)).slice(0, OUTPUT_CHARS);
  for (const { turn, runId, callId } of long) {
    const id = toolCallRecordId(turn.turnId, runId, callId);
    await db.models.ToolOutput.create({ _id: `${id}#0`, sessionId, toolCallId: id, n: 0, data: line });
  }
  const summary = await db.store.ownedSession("bench-export", sessionId);
  const stored = await db.store.loadHistory(sessionId);

  globalThis.gc?.();
  const before = process.memoryUsage().heapUsed;
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().heapUsed);
  }, 10);
  const started = performance.now();
  let bytes = 0;
  // As a socket would: each piece is taken and let go.
  for await (const piece of exportSession(db.store, summary, stored, "json").chunks) {
    bytes += piece.length;
    peak = Math.max(peak, process.memoryUsage().heapUsed);
  }
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  const peakHeapMb = Math.max(0, (peak - before) / 2 ** 20);

  const pieces: string[] = [];
  for await (const piece of exportSession(db.store, summary, stored, "json").chunks) pieces.push(piece);
  const file = pieces.join("");
  pieces.length = 0;

  const importStarted = performance.now();
  const copy = await importSessionFile(db.store, "bench-export", await parseSessionFile(file), (title) =>
    db.store.createSession("bench-export", title),
  );
  const importSeconds = (performance.now() - importStarted) / 1000;
  const again = await db.store.loadHistory(copy.sessionId);
  const importExact = again.length === stored.length && again.every((t, i) => withoutIds(t) === withoutIds(stored[i]!));
  return {
    fileMb: round(bytes / 2 ** 20, 1),
    turns,
    seconds: round(seconds, 1),
    peakHeapMb: round(peakHeapMb, 0),
    importSeconds: round(importSeconds, 1),
    importExact,
  };
}
