import type { AgentEvent, ChatTurn, ToolCall } from "@/lib/contracts";

/**
 * What the server stores for a finished turn, rebuilt from its events (master level only:
 * subagent calls carry their full process from `agent:complete`). Lets tests feed a live
 * turn back as history, closing the live → stored → rebuilt loop.
 */
export function turnFromEvents(events: readonly AgentEvent[], sessionId = "s1"): ChatTurn {
  const started = events.find((e) => e.type === "turn:started");
  const ended = events.find((e) => e.type === "turn:ended");
  if (started?.type !== "turn:started" || ended?.type !== "turn:ended") throw new Error("turn did not start and end");
  const calls = new Map<string, ToolCall>();
  for (const e of events) {
    if (e.type === "tool:call") {
      calls.set(e.callId, { callId: e.callId, name: e.name, parameters: e.parameters, response: "", responseSize: 0, status: "running", textOffset: e.textOffset });
    } else if (e.type === "tool:result") {
      Object.assign(calls.get(e.callId)!, { response: e.response, responseSize: e.responseSize, status: e.status });
    } else if (e.type === "agent:complete" && e.parentRunId === null) {
      const call = calls.get(e.callId);
      if (call) call.subagent = e.subagent;
    }
  }
  return {
    turnId: started.turnId,
    sessionId,
    prompt: started.prompt,
    response: ended.response,
    toolCalls: [...calls.values()],
    stats: ended.stats,
    status: ended.status,
    ...(ended.error ? { error: ended.error } : {}),
    createdAt: started.createdAt,
    updatedAt: ended.endedAt,
  };
}
