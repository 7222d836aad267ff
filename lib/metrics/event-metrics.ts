import type { AgentEvent, EndReason, ModelCallSummary, ToolStatus, TurnStatus } from "@/lib/contracts";
import { budgetStopOf } from "@/lib/agent/budget-stop";
import { BoundedLabels } from "./bounded-labels";

/**
 * What one agent event, or one model request's record, changes in the process's metrics:
 * a list of plain updates, so the mapping is tested without a metrics library and the
 * server applies them to its instruments (server/metrics/). It reads the same events the
 * chat's session folds, stores and relays, so the figures count what the chats show.
 *
 * Labels stay few: end reasons and statuses are closed sets; model and tool names come
 * from the configuration, but a model may name a tool that does not exist, so both pass
 * through a bounded set (past its size, "other"). No session, turn, run or person id is
 * ever a label.
 */
export type MetricUpdate =
  | { kind: "turn_started" }
  | { kind: "turn_ended"; reason: TurnEndLabel }
  | { kind: "run_started" }
  | { kind: "run_ended"; reason: EndReason }
  | { kind: "tool_call"; tool: string; status: Exclude<ToolStatus, "running">; seconds: number }
  | { kind: "approvals_waiting"; delta: number }
  | { kind: "budget_stop"; whose: "run" | "turn" | "quota" }
  | {
      kind: "model_request";
      operation: "chat";
      model: string;
      /** Which request: an agent's step (`chat`) or the system model's compaction and condensation (`system`). */
      purpose: ModelCallSummary["purpose"];
      seconds: number;
      /** Absent when the provider reported no usage. */
      tokens?: { input: number; output: number };
      error: boolean;
    };

/** How a turn ended: its end reason when it names one (`budget_exceeded`), else its status. */
export type TurnEndLabel = Exclude<TurnStatus, "running"> | EndReason;

interface OpenCall {
  tool: string;
  startedMs: number;
}

/** What the mapping remembers of a running turn, and forgets when it ends. */
interface TurnState {
  calls: Map<string, OpenCall>;
  approvals: Set<string>;
  runs: Set<string>;
}

/** How many distinct model and tool names get a label of their own. */
export const MAX_MODEL_LABELS = 50;
export const MAX_TOOL_LABELS = 100;

export class EventMetrics {
  private readonly turns = new Map<string, TurnState>();
  private readonly tools = new BoundedLabels(MAX_TOOL_LABELS);
  private readonly models = new BoundedLabels(MAX_MODEL_LABELS);

  /** `now`: the time (ms) an event is read, for calls whose events carry none. */
  constructor(private readonly now: () => number = Date.now) {}

  /** Turns this mapping holds state for (a test checks it forgets ended turns). */
  get openTurns(): number {
    return this.turns.size;
  }

  event(event: AgentEvent): MetricUpdate[] {
    switch (event.type) {
      case "turn:started":
        // A repeated start (the reducer ignores it) must not count twice.
        if (this.turns.has(event.turnId)) return [];
        this.turns.set(event.turnId, { calls: new Map(), approvals: new Set(), runs: new Set() });
        return [{ kind: "turn_started" }];
      case "subagent_started": {
        const turn = this.turns.get(event.turnId);
        if (!turn || turn.runs.has(event.runId)) return [];
        turn.runs.add(event.runId);
        return [{ kind: "run_started" }];
      }
      case "subagent_completed":
      case "subagent_error":
        return this.runEnded(event.turnId, event.runId, event.endReason, event.type === "subagent_error" ? event.error : undefined);
      case "turn:data":
      case "subagent_data":
        return this.data(event);
      case "agent:complete":
        return [];
      case "turn:ended":
        return this.turnEnded(event);
    }
  }

  /** A model request as its record says: one duration, and its tokens when the provider reported them. */
  modelRequest(record: Pick<ModelCallSummary, "model" | "purpose" | "startedAt" | "endedAt" | "usage" | "error">): MetricUpdate[] {
    const seconds = Math.max(0, Date.parse(record.endedAt) - Date.parse(record.startedAt)) / 1000;
    return [
      {
        kind: "model_request",
        operation: "chat",
        model: this.models.label(record.model),
        purpose: record.purpose,
        seconds: Number.isFinite(seconds) ? seconds : 0,
        ...(record.usage ? { tokens: { input: record.usage.inputTokens, output: record.usage.outputTokens } } : {}),
        error: record.error !== null,
      },
    ];
  }

  private data(event: Extract<AgentEvent, { type: "turn:data" | "subagent_data" }>): MetricUpdate[] {
    const turn = this.turns.get(event.turnId);
    if (!turn) return [];
    const { data } = event;
    switch (data.kind) {
      case "tool_call":
        if (!turn.calls.has(data.callId))
          turn.calls.set(data.callId, { tool: this.tools.label(data.name), startedMs: timeOf(data.at, this.now) });
        return [];
      case "tool_result": {
        const call = turn.calls.get(data.callId);
        if (!call || data.status === "running") return [];
        turn.calls.delete(data.callId);
        return [
          { kind: "tool_call", tool: call.tool, status: data.status, seconds: secondsSince(call.startedMs, timeOf(data.at, this.now)) },
        ];
      }
      case "approval": {
        const waiting = turn.approvals.has(data.callId);
        if (data.approval.state === "pending") {
          if (waiting) return [];
          turn.approvals.add(data.callId);
          return [{ kind: "approvals_waiting", delta: 1 }];
        }
        if (!waiting) return [];
        turn.approvals.delete(data.callId);
        return [{ kind: "approvals_waiting", delta: -1 }];
      }
      default:
        return [];
    }
  }

  private runEnded(turnId: string, runId: string, reason: EndReason, error: string | undefined): MetricUpdate[] {
    const turn = this.turns.get(turnId);
    // The first terminal event wins, as in the reducer.
    if (!turn?.runs.delete(runId)) return [];
    const updates: MetricUpdate[] = [{ kind: "run_ended", reason }];
    // Counted where the stop happened: a run below a stopped one is not a stop of its own.
    if (reason === "budget_exceeded" && budgetStopOf(error) === "run") updates.push({ kind: "budget_stop", whose: "run" });
    return updates;
  }

  private turnEnded(event: Extract<AgentEvent, { type: "turn:ended" }>): MetricUpdate[] {
    const turn = this.turns.get(event.turnId);
    if (!turn) return [];
    this.turns.delete(event.turnId);
    const endedMs = timeOf(event.endedAt, this.now);
    const updates: MetricUpdate[] = [];
    // What the turn leaves running ends with it (see endRunning in lib/turn/reduce.ts).
    const runsEnd = event.runsEnd?.endReason ?? (event.status === "cancelled" ? "killed" : "failed");
    for (const _ of turn.runs) updates.push({ kind: "run_ended", reason: runsEnd });
    for (const call of turn.calls.values())
      updates.push({ kind: "tool_call", tool: call.tool, status: "cancelled", seconds: secondsSince(call.startedMs, endedMs) });
    if (turn.approvals.size > 0) updates.push({ kind: "approvals_waiting", delta: -turn.approvals.size });
    updates.push({ kind: "turn_ended", reason: event.endReason ?? event.status });
    if (event.endReason === "budget_exceeded") {
      const whose = budgetStopOf(event.error);
      updates.push({ kind: "budget_stop", whose: whose === "quota" ? "quota" : "turn" });
    }
    return updates;
  }
}

function timeOf(iso: string | undefined, now: () => number): number {
  const parsed = iso === undefined ? NaN : Date.parse(iso);
  return Number.isFinite(parsed) ? parsed : now();
}

function secondsSince(startMs: number, endMs: number): number {
  return Math.max(0, endMs - startMs) / 1000;
}
