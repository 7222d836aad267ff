import type { ChatTurn, EndReason, RunStatus, SubagentProcess, ToolCall, ToolStatus, TurnStats, TurnStatus } from "@/lib/contracts";
import { emptyStats } from "@/lib/contracts";
import { SubagentRunModel } from "@/models/subagent-run";
import { ToolCallModel } from "@/models/tool-call";
import { TurnModel } from "@/models/turn";

/**
 * A session's whole history in three queries (turns, tool calls, subagent runs), however
 * many turns it has, assembled into the stored shape of seed 000: subagent processes
 * nested in the tool calls that spawned them, to any depth.
 */

interface TurnRow {
  _id: string;
  sessionId: string;
  prompt: string;
  response: string;
  thinking?: string | null;
  status: TurnStatus;
  error?: string | null;
  stats?: TurnStats | null;
  createdAt: Date;
  updatedAt: Date;
}
interface CallRow {
  turnId: string;
  runId?: string | null;
  callId: string;
  order: number;
  name: string;
  parameters: string;
  response: string;
  responseSize: number;
  status: ToolStatus;
  textOffset: number;
}
interface RunRow {
  _id: string;
  turnId: string;
  callId: string;
  parentRunId?: string | null;
  depth: number;
  name: string;
  task: string;
  prompt: string;
  thinking?: string | null;
  response: string;
  status: RunStatus;
  endReason?: EndReason | null;
  error?: string | null;
  stats?: TurnStats | null;
  startedAt: Date;
  endedAt?: Date | null;
}

export interface HistoryRows {
  turns: TurnRow[];
  calls: CallRow[];
  runs: RunRow[];
}

export async function loadHistoryRows(sessionId: string): Promise<HistoryRows> {
  const [turns, calls, runs] = await Promise.all([
    TurnModel.find({ sessionId }).sort({ createdAt: 1 }).lean<TurnRow[]>(),
    ToolCallModel.find({ sessionId }, { _id: 0, sessionId: 0 }).lean<CallRow[]>(),
    SubagentRunModel.find({ sessionId }, { sessionId: 0 }).lean<RunRow[]>(),
  ]);
  return { turns, calls, runs };
}

export async function loadHistory(sessionId: string): Promise<ChatTurn[]> {
  return assembleHistory(sessionId, await loadHistoryRows(sessionId));
}

const key = (turnId: string, runId: string | null | undefined) => `${turnId}|${runId ?? ""}`;

function normalizeStats(stats: TurnStats | null | undefined): TurnStats {
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

/** Pure: rows in, stored turns out. */
export function assembleHistory(sessionId: string, rows: HistoryRows): ChatTurn[] {
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

  const toolCallsOf = (turnId: string, runId: string | null, depthGuard: number): ToolCall[] =>
    (callsByRun.get(key(turnId, runId)) ?? []).map((call) => {
      const out: ToolCall = {
        callId: call.callId,
        name: call.name,
        parameters: call.parameters,
        response: call.response,
        responseSize: call.responseSize,
        status: call.status,
        textOffset: call.textOffset,
      };
      const run = runBySpawn.get(`${key(turnId, runId)}|${call.callId}`);
      if (run && depthGuard < 32) out.subagent = processOf(run, depthGuard + 1);
      return out;
    });

  const processOf = (run: RunRow, depthGuard: number): SubagentProcess => {
    const process: SubagentProcess = {
      runId: run._id,
      parentRunId: run.parentRunId ?? null,
      depth: run.depth,
      name: run.name,
      task: run.task,
      prompt: run.prompt,
      response: run.response,
      toolCalls: toolCallsOf(run.turnId, run._id, depthGuard),
      stats: normalizeStats(run.stats),
      status: run.status,
      startedAt: run.startedAt.toISOString(),
    };
    if (run.thinking) process.thinking = run.thinking;
    if (run.endReason) process.endReason = run.endReason;
    if (run.error) process.error = run.error;
    if (run.endedAt) process.endedAt = run.endedAt.toISOString();
    return process;
  };

  return rows.turns.map((turn) => {
    const out: ChatTurn = {
      turnId: turn._id,
      sessionId,
      prompt: turn.prompt,
      response: turn.response,
      toolCalls: toolCallsOf(turn._id, null, 0),
      stats: normalizeStats(turn.stats),
      status: turn.status,
      createdAt: turn.createdAt.toISOString(),
      updatedAt: turn.updatedAt.toISOString(),
    };
    if (turn.thinking) out.thinking = turn.thinking;
    if (turn.error) out.error = turn.error;
    return out;
  });
}
