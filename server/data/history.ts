import type { ChatTurn, EndReason, RunStatus, Step, SubagentProcess, ToolCall, ToolStatus, TurnStats, TurnStatus } from "@/lib/contracts";
import { emptyStats } from "@/lib/contracts";
import type { Models } from "@/models";
import type { SubagentRunRecord } from "@/models/subagent-run";
import type { ToolCallRecord } from "@/models/tool-call";
import type { TurnRecord } from "@/models/turn";

/**
 * A session's whole history in three queries (turns, tool calls, subagent runs), however
 * many turns it has, assembled into the turn tree (`ChatTurn`): each agent's steps with
 * their tool calls, subagent processes nested in the calls that spawned them, to any
 * depth. Built to equal, field for field, what the turn reducer folded from the events.
 */

type TurnRow = TurnRecord & { _id: string; createdAt: Date };
type CallRow = ToolCallRecord;
type RunRow = SubagentRunRecord & { _id: string };

export interface HistoryRows {
  turns: TurnRow[];
  calls: CallRow[];
  runs: RunRow[];
}

export async function loadHistoryRows(models: Models, sessionId: string): Promise<HistoryRows> {
  const [turns, calls, runs] = await Promise.all([
    models.Turn.find({ sessionId }).sort({ createdAt: 1 }).lean<TurnRow[]>(),
    models.ToolCall.find({ sessionId }, { _id: 0, sessionId: 0 }).lean<CallRow[]>(),
    models.SubagentRun.find({ sessionId }, { sessionId: 0 }).lean<RunRow[]>(),
  ]);
  return { turns, calls, runs };
}

export async function loadHistory(models: Models, sessionId: string): Promise<ChatTurn[]> {
  return assembleHistory(sessionId, await loadHistoryRows(models, sessionId));
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

/**
 * Steps from a stored text list and the owner's calls (each carrying its step index):
 * as many steps as either knows of, as the reducer creates them.
 */
function stepsOf(texts: readonly { text?: string | null; thinking?: string | null }[], calls: ToolCall[][]): Step[] {
  const count = Math.max(texts.length, calls.length);
  const steps: Step[] = [];
  for (let i = 0; i < count; i++) {
    steps.push({ text: texts[i]?.text ?? "", thinking: texts[i]?.thinking ?? "", toolCalls: calls[i] ?? [] });
  }
  return steps;
}

/** Pure: rows in, turns out. */
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
        status: call.status as ToolStatus,
      };
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
      steps: stepsOf(run.steps ?? [], callsOf(run.turnId, run._id, depthGuard)),
      response: run.response,
      stats: normalizeStats(run.stats),
      status: run.status as RunStatus,
      startedAt: run.startedAt.toISOString(),
    };
    if (run.endReason) process.endReason = run.endReason as EndReason;
    if (run.error) process.error = run.error;
    if (run.endedAt) process.endedAt = run.endedAt.toISOString();
    return process;
  };

  return rows.turns.map((turn) => {
    const out: ChatTurn = {
      turnId: turn._id,
      sessionId,
      prompt: turn.prompt,
      steps: stepsOf(turn.steps ?? [], callsOf(turn._id, null, 0)),
      stats: normalizeStats(turn.stats),
      status: turn.status as TurnStatus,
      createdAt: turn.createdAt.toISOString(),
    };
    if (turn.error) out.error = turn.error;
    if (turn.endedAt) out.endedAt = turn.endedAt.toISOString();
    return out;
  });
}
