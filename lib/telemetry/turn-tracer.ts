import type { AgentEvent, TurnStats } from "@/lib/contracts";
import type { ChatModel, ModelToolCall } from "@/lib/model/types";

/**
 * The agent runtime's tracing port. The runtime tells it what a turn does (every event it
 * publishes, each model it runs an agent on, each tool call it runs, each command a person
 * sends) and knows nothing of OpenTelemetry: the implementation lives in server/telemetry/.
 * With tracing off the runtime holds no tracer at all, so it wraps nothing and builds
 * nothing (see `AgentRuntimeDeps.tracer`).
 */
export interface TurnTracer {
  startTurn(turn: TracedTurn): TurnTrace;
}

export interface TracedTurn {
  /** The chat's id: the trace's conversation. */
  sessionId: string;
  turnId: string;
  prompt: string;
  /** The master's name as a trace shows it. */
  agentName: string;
}

/** What a person asked of a running turn, as it reached the process running it. */
export type TracedCommand =
  | { kind: "cancel" }
  | { kind: "steer"; runId: string; message: string }
  | { kind: "kill"; runId: string }
  | { kind: "decide"; callId: string; runId: string | null | undefined; approve: boolean }
  | { kind: "answer"; callId: string; runId: string | null | undefined; action: "accept" | "decline" }
  | { kind: "retry"; runId: string };

/** How the master ended, where the turn's stats alone do not say. */
export interface TurnEnd {
  status: "completed" | "failed" | "cancelled";
  stats: TurnStats;
  /** `budget_exceeded`, `watchdog_timeout`, `max_steps` or a model failure's kind; absent when it ended well or was cancelled. */
  errorType?: string;
  error?: string;
  /** The master's final answer (recorded only when message content is captured). */
  answer?: string;
}

export interface TurnTrace {
  /** Every event the turn publishes, in order (subagents open and close, approvals, steers). */
  event(event: AgentEvent): void;
  /** The model an agent (the master: `runId` null) runs on, wrapped so each request is a span. */
  model(model: ChatModel, runId: string | null, purpose: "chat" | "system"): ChatModel;
  /** Runs one tool call inside its span (so whatever the tool sends out carries the trace). */
  tool<T extends { content: string; status: string }>(runId: string | null, call: ModelToolCall, run: () => Promise<T>): Promise<T>;
  /** A run's transcript was compacted to fit its context budget (`runId` null: the master). */
  compacted(runId: string | null, info: { method: string; beforeTokens: number; afterTokens: number }): void;
  /** A finished run's answer was condensed for its parent: level 1 unchanged, 2 rewritten by the system model, 3 cut (see lib/agent/condense.ts). */
  condensed(runId: string, info: { level: number; originalTokens: number; bodyTokens: number }): void;
  /** A person's command as it reached this turn (relayed from another process or not). */
  command(command: TracedCommand): void;
  /** The turn ended: closes what is left open. */
  end(end: TurnEnd): void;
  /**
   * Runs `fn` with the turn's own span as the active context, so what the turn does
   * outside its model and tool spans (its log lines, above all) carries the turn's trace.
   */
  within<T>(fn: () => T): T;
}
