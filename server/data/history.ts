import type {
  Approval,
  ChatTurn,
  EndReason,
  RunStatus,
  Steer,
  Step,
  SubagentProcess,
  ToolCall,
  ToolStatus,
  TurnStats,
  TurnStatus,
} from "@/lib/contracts";
import { AppError, emptyStats } from "@/lib/contracts";
import type { Models } from "@/models";
import { stepTextId } from "./event-store";
import type { SubagentRunRecord } from "@/models/subagent-run";
import type { ToolCallRecord } from "@/models/tool-call";
import type { TurnRecord } from "@/models/turn";

/**
 * A session's whole history in three queries (turns, tool calls, subagent runs), however
 * many turns it has, assembled into the turn tree (`ChatTurn`): each agent's steps with
 * their tool calls, subagent processes nested in the calls that spawned them, to any
 * depth. Built to equal, field for field, what the turn reducer folded from the events.
 */

/**
 * Records written before turns had steps (Delegate 0.1) hold one flat text instead: the
 * master's `response` with calls placed by `textOffset`, a run's `response` and
 * `thinking`. They are read as steps (see `legacyStepIndex`), never rewritten.
 */
interface Legacy {
  response?: string | null;
  thinking?: string | null;
  textOffset?: number | null;
}
type TurnRow = TurnRecord & Legacy & { _id: string; createdAt: Date };
type CallRow = ToolCallRecord & Legacy;
type RunRow = SubagentRunRecord & Legacy & { _id: string };

export interface HistoryRows {
  turns: TurnRow[];
  calls: CallRow[];
  runs: RunRow[];
  /** The whole of each text too long for its document, by text id (see `stepTextId`). */
  longTexts?: ReadonlyMap<string, string>;
}

/** Turn order: by start, and by id between turns started in the same millisecond (pages and the whole history agree). */
const TURN_ORDER = { createdAt: 1, _id: 1 } as const;
const TURN_ORDER_NEWEST_FIRST = { createdAt: -1, _id: -1 } as const;

/** Three queries, and a fourth only when some text was too long for its document. */
export async function loadHistoryRows(models: Models, sessionId: string): Promise<HistoryRows> {
  const [turns, calls, runs] = await Promise.all([
    models.Turn.find({ sessionId }).sort(TURN_ORDER).lean<TurnRow[]>(),
    models.ToolCall.find({ sessionId }, { _id: 0, sessionId: 0 }).lean<CallRow[]>(),
    models.SubagentRun.find({ sessionId }, { sessionId: 0 }).lean<RunRow[]>(),
  ]);
  return withLongTexts(models, sessionId, { turns, calls, runs });
}

/** One page of a session's rows and whether older turns exist. */
export interface HistoryPageRows extends HistoryRows {
  hasOlder: boolean;
}

/**
 * The `limit` turns just before the turn `before` (the newest `limit` without it), with
 * their calls and runs only: one indexed query with a limit for the turns (one more row
 * than asked says whether older ones exist), then their calls and runs by turn id.
 * `before` must be a turn of this session (`bad_request` otherwise).
 */
export async function loadHistoryPageRows(models: Models, sessionId: string, limit: number, before?: string): Promise<HistoryPageRows> {
  let filter: Record<string, unknown> = { sessionId };
  if (before !== undefined) {
    const anchor = await models.Turn.findOne({ _id: before, sessionId }, { createdAt: 1 }).lean<{ _id: string; createdAt: Date }>();
    if (!anchor) throw new AppError("bad_request", "Invalid session:older request: before is not a turn of this chat.");
    filter = { sessionId, $or: [{ createdAt: { $lt: anchor.createdAt } }, { createdAt: anchor.createdAt, _id: { $lt: anchor._id } }] };
  }
  const newestFirst = await models.Turn.find(filter)
    .sort(TURN_ORDER_NEWEST_FIRST)
    .limit(limit + 1)
    .lean<TurnRow[]>();
  const hasOlder = newestFirst.length > limit;
  const turns = newestFirst.slice(0, limit).reverse();
  if (turns.length === 0) return { turns, calls: [], runs: [], hasOlder };
  const turnIds = turns.map((t) => t._id);
  const [calls, runs] = await Promise.all([
    models.ToolCall.find({ sessionId, turnId: { $in: turnIds } }, { _id: 0, sessionId: 0 }).lean<CallRow[]>(),
    models.SubagentRun.find({ sessionId, turnId: { $in: turnIds } }, { sessionId: 0 }).lean<RunRow[]>(),
  ]);
  return { ...(await withLongTexts(models, sessionId, { turns, calls, runs })), hasOlder };
}

/** Adds the texts that outgrew their documents, read in one more query when there are any. */
async function withLongTexts(models: Models, sessionId: string, rows: Omit<HistoryRows, "longTexts">): Promise<HistoryRows> {
  const { turns, runs } = rows;
  const ids = [
    ...turns.flatMap((t) => chunkedIds(t._id, null, t.steps)),
    ...runs.flatMap((r) => [
      ...chunkedIds(r.turnId, r._id, r.steps),
      ...(r.responseChunks ? [stepTextId(r.turnId, r._id, "response")] : []),
    ]),
  ];
  if (ids.length === 0) return rows;
  const chunks = await models.TextChunk.find({ sessionId, textId: { $in: ids } }, { textId: 1, n: 1, data: 1 })
    .sort({ textId: 1, n: 1 })
    .lean<{ textId: string; data: string }[]>();
  const longTexts = new Map<string, string>();
  for (const chunk of chunks) longTexts.set(chunk.textId, (longTexts.get(chunk.textId) ?? "") + chunk.data);
  return { ...rows, longTexts };
}

function chunkedIds(turnId: string, runId: string | null, steps: StoredSteps | undefined): string[] {
  return (steps ?? []).flatMap((step, i) => [
    ...(step?.textChunks ? [stepTextId(turnId, runId, `${i}:text`)] : []),
    ...(step?.thinkingChunks ? [stepTextId(turnId, runId, `${i}:thinking`)] : []),
  ]);
}

export async function loadHistory(models: Models, sessionId: string): Promise<ChatTurn[]> {
  return assembleHistory(sessionId, await loadHistoryRows(models, sessionId));
}

/** A page of turns (see `loadHistoryPageRows`), assembled; `older` is its oldest turn's id while older turns exist. */
export async function loadHistoryPage(
  models: Models,
  sessionId: string,
  limit: number,
  before?: string,
): Promise<{ turns: ChatTurn[]; older: string | null }> {
  const rows = await loadHistoryPageRows(models, sessionId, limit, before);
  const turns = assembleHistory(sessionId, rows);
  return { turns, older: rows.hasOlder ? (turns[0]?.turnId ?? null) : null };
}

const key = (turnId: string, runId: string | null | undefined) => `${turnId}|${runId ?? ""}`;

function normalizeStats(stats: Partial<TurnStats> | null | undefined): TurnStats {
  const base = emptyStats();
  if (!stats) return base;
  return {
    chat: { inputTokens: stats.chat?.inputTokens ?? 0, outputTokens: stats.chat?.outputTokens ?? 0 },
    system: { inputTokens: stats.system?.inputTokens ?? 0, outputTokens: stats.system?.outputTokens ?? 0 },
    steps: stats.steps ?? 0,
    runtimeMs: stats.runtimeMs ?? 0,
    cost: stats.cost ?? 0,
  };
}

type StoredSteps = readonly (StoredStepText | null | undefined)[];
interface StoredStepText {
  text?: string | null;
  thinking?: string | null;
  textParts?: string[] | null;
  thinkingParts?: string[] | null;
  textChunks?: number | null;
  thinkingChunks?: number | null;
}

/**
 * Steps from a stored text list and the owner's calls (each carrying its step index):
 * as many steps as either knows of, as the reducer creates them. A text is stored as it streamed (server/data/text-appends.ts): its first piece, the
 * pieces appended after it, then what outgrew the document, in chunks.
 */
function stepsOf(
  texts: StoredSteps,
  calls: ToolCall[][],
  whole: (i: number, field: "text" | "thinking") => string | undefined = () => undefined,
  times?: unknown,
): Step[] {
  const count = Math.max(texts.length, calls.length);
  const steps: Step[] = [];
  for (let i = 0; i < count; i++) {
    const stored = texts[i];
    const text = storedText(stored?.text, stored?.textParts, stored?.textChunks ? whole(i, "text") : undefined);
    const thinking = storedText(stored?.thinking, stored?.thinkingParts, stored?.thinkingChunks ? whole(i, "thinking") : undefined);
    const step: Step = { text, thinking, toolCalls: calls[i] ?? [] };
    const time = Array.isArray(times) ? times[i] : undefined;
    if (Array.isArray(time) && typeof time[0] === "string" && typeof time[1] === "string") {
      step.startedAt = time[0];
      step.endedAt = time[1];
    }
    steps.push(step);
  }
  return steps;
}

function storedText(first: string | null | undefined, parts: readonly string[] | null | undefined, chunked: string | undefined): string {
  const head = first ?? "";
  const inline = parts && parts.length > 0 ? head + parts.join("") : head;
  return chunked ? inline + chunked : inline;
}

/**
 * A 0.1 turn's steps: its text cut at each distinct `textOffset` of its calls (calls at
 * one offset were one model request), the text after the last call being the answer.
 */
function legacyTurnSteps(text: string, calls: readonly CallRow[], toolCalls: ToolCall[][]): Step[] {
  const flat = toolCalls.flat();
  const offsets = [...new Set(calls.map((c) => Math.min(c.textOffset ?? 0, text.length)))].sort((a, b) => a - b);
  const steps: Step[] = offsets.map((offset, i) => ({
    text: text.slice(offsets[i - 1] ?? 0, offset),
    thinking: "",
    toolCalls: flat.filter((_, k) => Math.min(calls[k]!.textOffset ?? 0, text.length) === offset),
  }));
  const rest = text.slice(offsets.at(-1) ?? 0);
  if (rest || steps.length === 0) steps.push({ text: rest, thinking: "", toolCalls: [] });
  return steps;
}

/** The stored approval as the fold holds it: absent fields stay absent (the database may hand back nulls). */
function approvalOf(row: NonNullable<CallRow["approval"]>): Approval {
  const approval: Approval = { state: row.state as Approval["state"], requestedAt: row.requestedAt, reason: row.reason ?? "" };
  for (const key of ["preview", "decidedAt", "decidedBy", "denyReason", "note"] as const) {
    const value = row[key];
    if (typeof value === "string") approval[key] = value;
  }
  return approval;
}

/** An agent's stored steering messages as the fold holds them: absent when there were none. */
function steeringOf(rows: readonly { step: number; message: string; at: string }[] | null | undefined): Steer[] | undefined {
  return rows?.length ? rows.map(({ step, message, at }) => ({ step, message, at })) : undefined;
}

/** Pure: rows in, turns out. */
export function assembleHistory(sessionId: string, rows: HistoryRows): ChatTurn[] {
  const long = (textId: string) => rows.longTexts?.get(textId);
  const callsByRun = new Map<string, CallRow[]>();
  for (const call of rows.calls) {
    const k = key(call.turnId, call.runId);
    const list = callsByRun.get(k);
    if (list) list.push(call);
    else callsByRun.set(k, [call]);
  }
  for (const list of callsByRun.values()) list.sort((a, b) => a.order - b.order);

  const runBySpawn = new Map<string, RunRow>();
  for (const run of rows.runs) runBySpawn.set(`${key(run.turnId, run.parentRunId)}|${run.callId}`, run);

  /** The calls of one agent, grouped by step. */
  const callsOf = (turnId: string, runId: string | null, depthGuard: number): ToolCall[][] => {
    const byStep: ToolCall[][] = [];
    for (const call of callsByRun.get(key(turnId, runId)) ?? []) {
      const out: ToolCall = {
        callId: call.callId,
        name: call.name,
        parameters: call.parameters,
        response: call.response,
        responseSize: call.responseSize,
        status: toolStatusOf(call),
      };
      if (call.approval) out.approval = approvalOf(call.approval);
      if (typeof call.startedAt === "string") out.startedAt = call.startedAt;
      if (typeof call.endedAt === "string") out.endedAt = call.endedAt;
      const run = runBySpawn.get(`${key(turnId, runId)}|${call.callId}`);
      if (run && depthGuard < 32) out.subagent = processOf(run, depthGuard + 1);
      const step = call.step ?? 0;
      for (let i = byStep.length; i <= step; i++) byStep.push([]);
      byStep[step]!.push(out);
    }
    return byStep;
  };

  const processOf = (run: RunRow, depthGuard: number): SubagentProcess => {
    const process: SubagentProcess = {
      runId: run._id,
      parentRunId: run.parentRunId ?? null,
      depth: run.depth,
      name: run.name,
      task: run.task,
      prompt: run.prompt,
      steps:
        run.steps !== undefined
          ? stepsOf(
              run.steps ?? [],
              callsOf(run.turnId, run._id, depthGuard),
              (i, field) => long(stepTextId(run.turnId, run._id, `${i}:${field}`)),
              run.stepTimes,
            )
          : // 0.1: one step holding everything the run wrote and called.
            stepsOf([{ text: run.response, thinking: run.thinking ?? "" }], [callsOf(run.turnId, run._id, depthGuard).flat()]),
      response: (run.responseChunks && long(stepTextId(run.turnId, run._id, "response"))) || run.response,
      stats: normalizeStats(run.stats),
      status: run.status as RunStatus,
      startedAt: run.startedAt.toISOString(),
    };
    if (run.endReason) process.endReason = run.endReason as EndReason;
    if (run.error) process.error = run.error;
    if (run.endedAt) process.endedAt = run.endedAt.toISOString();
    if (run.model != null) process.model = run.model;
    if (run.retryOf != null) process.retryOf = run.retryOf;
    const steering = steeringOf(run.steering);
    if (steering) process.steering = steering;
    return process;
  };

  return rows.turns.map((turn) => {
    const out: ChatTurn = {
      turnId: turn._id,
      sessionId,
      prompt: turn.prompt,
      steps:
        turn.steps !== undefined || turn.response == null
          ? stepsOf(
              turn.steps ?? [],
              callsOf(turn._id, null, 0),
              (i, field) => long(stepTextId(turn._id, null, `${i}:${field}`)),
              turn.stepTimes,
            )
          : legacyTurnSteps(turn.response, callsByRun.get(key(turn._id, null)) ?? [], callsOf(turn._id, null, 0)),
      stats: normalizeStats(turn.stats),
      status: turn.status as TurnStatus,
      createdAt: turn.createdAt.toISOString(),
    };
    if (turn.error) out.error = turn.error;
    if (turn.endedAt) out.endedAt = turn.endedAt.toISOString();
    const steering = steeringOf(turn.steering);
    if (steering) out.steering = steering;
    return out;
  });
}

/**
 * A stored call's status. Before `cancelled` was a status, a call cut short was stored as
 * an `error` whose result reads `Error [cancelled]` (its run stopped while it ran) or with
 * no result at all (its turn ended first): such a row reads as cancelled, never rewritten.
 */
function toolStatusOf(row: { status: string; response: string; responseSize: number }): ToolStatus {
  if (row.status !== "error") return row.status as ToolStatus;
  const cutShort = row.response.startsWith("Error [cancelled]") || (row.response === "" && row.responseSize === 0);
  return cutShort ? "cancelled" : "error";
}
