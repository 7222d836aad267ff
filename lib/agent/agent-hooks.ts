import { toolOutputOf } from "@/lib/contracts";
import type { LoopHooks } from "./agent-loop";
import type { AgentNode } from "./agent-node";

/**
 * What an agent's loop reports, turned into that agent's events: one set of hooks for the
 * master and every subagent, so what one shows the other shows too (its reasoning
 * included). `startedMs` is when the run started (its stats' runtime counts from there).
 */
export function agentHooks(node: AgentNode, now: () => number, startedMs: number): LoopHooks {
  const iso = () => new Date(now()).toISOString();
  let stepStartedAt = iso();
  let steers = 0;
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
    onStepEnd: (steps) => {
      node.meter.steps = steps;
      const stepTiming = { step: steps - 1, startedAt: stepStartedAt, endedAt: iso() };
      node.emit({ kind: "usage", stats: node.meter.stats(now() - startedMs), stepTiming });
    },
  };
}
