import type {
  Budget,
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
import { emptyStats, inputRequestSchema, type InputRequest } from "@/lib/contracts";
import type { Agent } from "@/lib/turn/paths";
import { stepTextId } from "./event-store";
import { storedStepTime } from "./document-fields";
import type { SubagentRunRecord } from "@/models/subagent-run";
import type { ToolCallRecord } from "@/models/tool-call";
import type { TurnRecord } from "@/models/turn";
import { attachmentRefOf } from "./attachment-ref";

/**
 * Pure: a session's stored rows in, its turn trees (`ChatTurn`) out, built to equal, field
 * for field, what the turn reducer folded from the events. As the reducer's `applyData`
 * works on any `Agent`, one assembler builds any agent, the master or a subagent, from its
 * document and its tool-call rows, and builds the process each call spawned the same way.
 */

/**
 * Records written before turns had steps (Delegate 0.1) hold one flat text instead: the
 * master's `response` with calls placed by `textOffset`, a run's `response` and
 * `thinking`. They are read as steps (see `legacySteps`), never rewritten.
 */
interface Legacy {
  response?: string | null;
  thinking?: string | null;
  textOffset?: number | null;
}
export type TurnRow = TurnRecord & Legacy & { _id: string; createdAt: Date };
export type CallRow = ToolCallRecord & Legacy;
export type RunRow = SubagentRunRecord & Legacy & { _id: string };

export interface HistoryRows {
  turns: TurnRow[];
  calls: CallRow[];
  runs: RunRow[];
  /** The whole of each text too long for its document, by text id (see `stepTextId`). */
  longTexts?: ReadonlyMap<string, string>;
}

export type StoredSteps = readonly (StoredStepText | null | undefined)[];
interface StoredStepText {
  text?: string | null;
  thinking?: string | null;
  textParts?: string[] | null;
  thinkingParts?: string[] | null;
  textChunks?: number | null;
  thinkingChunks?: number | null;
}

export function assembleHistory(sessionId: string, rows: HistoryRows): ChatTurn[] {
  const index = indexRows(rows);
  return rows.turns.map((turn) => assembleAgent(masterOf(turn, sessionId), index, 0));
}

/** A session's rows, found by the agent they belong to. */
interface RowIndex {
  /** An agent's calls (`runId` null: the master's), in the order it made them. */
  callsOf(turnId: string, runId: string | null): readonly CallRow[];
  /** The run that call `callId` of an agent spawned. */
  runSpawnedBy(turnId: string, runId: string | null, callId: string): RunRow | undefined;
  /** The whole of a text that outgrew its document. */
  longText(textId: string): string | undefined;
}

const agentKey = (turnId: string, runId: string | null | undefined) => `${turnId}|${runId ?? ""}`;

function indexRows(rows: HistoryRows): RowIndex {
  const callsByAgent = new Map<string, CallRow[]>();
  for (const call of rows.calls) {
    const k = agentKey(call.turnId, call.runId);
    const list = callsByAgent.get(k);
    if (list) list.push(call);
    else callsByAgent.set(k, [call]);
  }
  for (const list of callsByAgent.values()) list.sort((a, b) => a.order - b.order);
  const runBySpawn = new Map<string, RunRow>();
  for (const run of rows.runs) runBySpawn.set(`${agentKey(run.turnId, run.parentRunId)}|${run.callId}`, run);
  return {
    callsOf: (turnId, runId) => callsByAgent.get(agentKey(turnId, runId)) ?? [],
    runSpawnedBy: (turnId, runId, callId) => runBySpawn.get(`${agentKey(turnId, runId)}|${callId}`),
    longText: (textId) => rows.longTexts?.get(textId),
  };
}

/** What every agent's document stores alike, the turn's for the master and a run's for a subagent. */
interface AgentDoc {
  steps?: StoredSteps | null;
  stepTimes?: unknown;
  stats?: Partial<TurnStats> | null;
  status: string;
  steering?: readonly { step: number; message: string; at: string }[] | null;
}

/**
 * One agent to assemble: which agent it is, its document, and what only its kind has.
 * `dress` adds the kind's own fields around the common ones, as the reducer's `newTurn`
 * and `startSubagent` do; it lays them out in the order the history has always had.
 */
interface StoredAgent<A extends Agent> {
  turnId: string;
  runId: string | null;
  doc: AgentDoc;
  /** Present for a 0.1 record: its steps, read from its one flat text and its calls. */
  legacySteps: ((calls: readonly CallRow[], toolCalls: ToolCall[][]) => Step[]) | undefined;
  dress(agent: Agent): A;
}

/** Why: corrupt records that make a run its own ancestor would otherwise nest without end. */
const MAX_NESTING = 32;

/**
 * Any agent, the master or a subagent: its steps from its stored texts and its calls, each
 * call holding the process it spawned, assembled here one level down.
 */
function assembleAgent<A extends Agent>(stored: StoredAgent<A>, index: RowIndex, depth: number): A {
  const { turnId, runId, doc } = stored;
  const callRows = index.callsOf(turnId, runId);
  const toolCalls = byStep(callRows, (row) => {
    const run = depth < MAX_NESTING ? index.runSpawnedBy(turnId, runId, row.callId) : undefined;
    return callOf(row, run && assembleAgent(subagentOf(run, index), index, depth + 1));
  });
  const whole = (i: number, field: "text" | "thinking") => index.longText(stepTextId(turnId, runId, `${i}:${field}`));
  const agent: Agent = {
    steps: stored.legacySteps ? stored.legacySteps(callRows, toolCalls) : stepsOf(doc.steps ?? [], toolCalls, whole, doc.stepTimes),
    stats: normalizeStats(doc.stats),
    status: doc.status,
  };
  const steering = steeringOf(doc.steering);
  if (steering) agent.steering = steering;
  return stored.dress(agent);
}

/** The master: the turn itself. */
function masterOf(turn: TurnRow, sessionId: string): StoredAgent<ChatTurn> {
  const flat = turn.steps === undefined ? turn.response : null;
  return {
    turnId: turn._id,
    runId: null,
    doc: turn,
    legacySteps: flat != null ? (calls, toolCalls) => legacyTurnSteps(flat, calls, toolCalls) : undefined,
    dress: ({ steps, stats, status, steering }) => {
      const out: ChatTurn = {
        turnId: turn._id,
        sessionId,
        prompt: turn.prompt,
        steps,
        stats,
        status: status as TurnStatus,
        createdAt: turn.createdAt.toISOString(),
      };
      if (turn.error) out.error = turn.error;
      if (turn.endedAt) out.endedAt = turn.endedAt.toISOString();
      if (steering) out.steering = steering;
      if (turn.model) out.model = turn.model;
      if (turn.parentTurnId !== undefined) out.parentTurnId = turn.parentTurnId;
      if (turn.sentBy) out.sentBy = turn.sentBy;
      if (turn.attachments?.length) out.attachments = turn.attachments.map(attachmentRefOf);
      if (turn.budget) out.budget = budgetOf(turn.budget);
      if (turn.endReason) out.endReason = turn.endReason as EndReason;
      return out;
    },
  };
}

/** A subagent: the process of one run, nested in the call that spawned it. */
function subagentOf(run: RunRow, index: RowIndex): StoredAgent<SubagentProcess> {
  return {
    turnId: run.turnId,
    runId: run._id,
    doc: run,
    // 0.1: one step holding everything the run wrote and called.
    legacySteps:
      run.steps === undefined
        ? (_, toolCalls) => [{ text: run.response ?? "", thinking: run.thinking ?? "", toolCalls: toolCalls.flat() }]
        : undefined,
    dress: ({ steps, stats, status, steering }) => {
      const process: SubagentProcess = {
        runId: run._id,
        parentRunId: run.parentRunId ?? null,
        depth: run.depth,
        name: run.name,
        task: run.task,
        prompt: run.prompt,
        steps,
        response: (run.responseChunks && index.longText(stepTextId(run.turnId, run._id, "response"))) || run.response,
        stats,
        status: status as RunStatus,
        startedAt: run.startedAt.toISOString(),
      };
      if (run.endReason) process.endReason = run.endReason as EndReason;
      if (run.error) process.error = run.error;
      if (run.endedAt) process.endedAt = run.endedAt.toISOString();
      if (run.model != null) process.model = run.model;
      if (run.definitionId != null && run.definitionVersion != null)
        process.definition = { id: run.definitionId, version: run.definitionVersion };
      if (run.retryOf != null) process.retryOf = run.retryOf;
      if (run.budget) process.budget = budgetOf(run.budget);
      if (steering) process.steering = steering;
      return process;
    },
  };
}

/** An agent's calls grouped by the step that made them, as many groups as the last call's step needs. */
function byStep(rows: readonly CallRow[], callOfRow: (row: CallRow) => ToolCall): ToolCall[][] {
  const groups: ToolCall[][] = [];
  for (const row of rows) {
    const step = row.step ?? 0;
    for (let i = groups.length; i <= step; i++) groups.push([]);
    groups[step]!.push(callOfRow(row));
  }
  return groups;
}

/** A stored call as the fold holds it: absent fields stay absent (the database may hand back nulls). */
function callOf(row: CallRow, subagent: SubagentProcess | undefined): ToolCall {
  const call: ToolCall = {
    callId: row.callId,
    name: row.name,
    parameters: row.parameters,
    response: row.response,
    responseSize: row.responseSize,
    status: toolStatusOf(row),
  };
  if (row.approval) call.approval = approvalOf(row.approval);
  const inputs = inputsOf(row.inputs);
  if (inputs) call.inputs = inputs;
  if (typeof row.startedAt === "string") call.startedAt = row.startedAt;
  if (typeof row.endedAt === "string") call.endedAt = row.endedAt;
  if (subagent) call.subagent = subagent;
  return call;
}

/**
 * Steps from a stored text list and the agent's calls by step: as many steps as either
 * knows of, as the reducer creates them. A text is stored as it streamed
 * (server/data/text-appends.ts): its first piece, the pieces appended after it, then what
 * outgrew the document, in chunks.
 */
function stepsOf(
  texts: StoredSteps,
  calls: ToolCall[][],
  whole: (i: number, field: "text" | "thinking") => string | undefined,
  times: unknown,
): Step[] {
  const count = Math.max(texts.length, calls.length);
  const steps: Step[] = [];
  for (let i = 0; i < count; i++) {
    const stored = texts[i];
    const text = storedText(stored?.text, stored?.textParts, stored?.textChunks ? whole(i, "text") : undefined);
    const thinking = storedText(stored?.thinking, stored?.thinkingParts, stored?.thinkingChunks ? whole(i, "thinking") : undefined);
    const step: Step = { text, thinking, toolCalls: calls[i] ?? [] };
    const time = storedStepTime(Array.isArray(times) ? times[i] : undefined);
    if (time) {
      step.startedAt = time.startedAt;
      step.endedAt = time.endedAt;
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

/** The stored questions as the fold holds them; a record that does not read as one is left out rather than shown wrong. */
function inputsOf(raw: unknown): InputRequest[] | undefined {
  if (!Array.isArray(raw) || raw.length === 0) return undefined;
  const inputs: InputRequest[] = [];
  for (const item of raw) {
    const parsed = inputRequestSchema.safeParse(item);
    if (!parsed.success) break;
    inputs.push(parsed.data);
  }
  return inputs.length ? inputs : undefined;
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
function steeringOf(rows: AgentDoc["steering"]): Steer[] | undefined {
  return rows?.length ? rows.map(({ step, message, at }) => ({ step, message, at })) : undefined;
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

/** A stored budget with only the limits it sets (no nulls), as the turn shape holds it. */
function budgetOf(stored: { tokens?: number | null; usd?: number | null }): Budget {
  return { ...(stored.tokens != null ? { tokens: stored.tokens } : {}), ...(stored.usd != null ? { usd: stored.usd } : {}) };
}
