import { toolOutputOf, type AgentDataOf, type TurnStats } from "@/lib/contracts";
import type { LoopHooks } from "./agent-loop";
import type { AgentNode } from "./agent-node";
import type { TurnTrace } from "@/lib/telemetry/turn-tracer";

/**
 * What an agent's loop reports, turned into that agent's events: one set of hooks for the
 * master and every subagent, so what one shows the other shows too (its reasoning
 * included). `startedMs` is when the run started (its stats' runtime counts from there).
 * `trace`: the turn's trace, told of what no event reports (a compaction).
 */
export function agentHooks(node: AgentNode, now: () => number, startedMs: number, trace?: TurnTrace): LoopHooks {
  const iso = () => new Date(now()).toISOString();
  let stepStartedAt = iso();
  let steers = 0;
  // Each response counted in this run or below it shows in its figures at once (a budget's
  // live spend), not only when its step ends: a parent's step lasts as long as its children.
  // A count that changed nothing (a provider that reports no usage) sends nothing.
  let shown = spentKey(node.meter.stats(0));
  const showUsage = (stepTiming?: AgentDataOf<"usage">["stepTiming"]) => {
    const stats = node.meter.stats(now() - startedMs);
    shown = spentKey(stats);
    node.emit({ kind: "usage", stats, ...(stepTiming ? { stepTiming } : {}) });
  };
  node.meter.onAdd(() => {
    if (spentKey(node.meter.stats(0)) !== shown) showUsage();
  });
  return {
    emit: node.emit,
    onToolCall: (step, c) => node.emit({ kind: "tool_call", step, callId: c.id, name: c.name, parameters: c.arguments, at: iso() }),
    onToolResult: (callId, content, status) => node.emit({ kind: "tool_result", callId, ...toolOutputOf(content), status, at: iso() }),
    onChatUsage: (usage) => node.meter.addChat(usage),
    onSystemUsage: (usage) => node.meter.addSystem(usage),
    // Recorded where it was injected, so the panel shows it in sequence (its parent never sees it).
    onSteer: (step, message) => node.emit({ kind: "steer", step, index: steers++, message, at: iso() }),
    onStepStart: () => {
      stepStartedAt = iso();
    },
    ...(trace
      ? {
          onCompact: (info: { method: string; beforeTokens: number; afterTokens: number }) =>
            trace.compacted(node.run?.runId ?? null, info),
        }
      : {}),
    onStepEnd: (steps) => {
      node.meter.steps = steps;
      showUsage({ step: steps - 1, startedAt: stepStartedAt, endedAt: iso() });
    },
  };
}

/** What a usage event would change: the tokens and the cost (runtime grows on its own). */
function spentKey(stats: TurnStats): string {
  return `${stats.chat.inputTokens}/${stats.chat.outputTokens}/${stats.system.inputTokens}/${stats.system.outputTokens}/${stats.cost}`;
}
