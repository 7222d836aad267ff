import type { AgentEvent } from "@/lib/contracts";
import type { Logger } from "@/lib/log";

/**
 * One line per turn this process ran, as it ends: what an operator looks for first when a
 * person says "my turn failed" (which chat, how it ended, how long, how much). The runtime
 * runs a turn inside its trace's context and the session observes its end there, so with
 * tracing on the line carries the turn's `trace_id` and leads straight to its trace.
 */
export function turnEndLine(event: AgentEvent, sessionId: string): { msg: string; meta: Record<string, unknown> } | undefined {
  if (event.type !== "turn:ended") return undefined;
  const { stats } = event;
  return {
    msg: `Turn ${event.status}`,
    meta: {
      sessionId,
      turnId: event.turnId,
      status: event.status,
      ...(event.endReason ? { endReason: event.endReason } : {}),
      ...(event.error ? { error: event.error } : {}),
      durationMs: stats.runtimeMs,
      steps: stats.steps,
      inputTokens: stats.chat.inputTokens + stats.system.inputTokens,
      outputTokens: stats.chat.outputTokens + stats.system.outputTokens,
      cost: stats.cost,
    },
  };
}

/** Writes turnEndLine's line: info when the turn completed or was cancelled, warn when it failed. */
export function logTurnEnd(log: Pick<Logger, "info" | "warn">, event: AgentEvent, sessionId: string): void {
  const line = turnEndLine(event, sessionId);
  if (!line) return;
  if (event.type === "turn:ended" && event.status === "failed") log.warn(line.msg, line.meta);
  else log.info(line.msg, line.meta);
}
