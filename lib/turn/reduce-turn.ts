import type { AgentEvent, AgentEventOf, ChatTurn, SubagentProcess, ToolCall } from "@/lib/contracts";
import { emptyStats } from "@/lib/contracts";
import { deepEqual, mapShared } from "@/lib/markup/deep-equal";
import { type SweepInfo, sweepOutcome } from "@/lib/markup/sweep";
import { appendAtOffset } from "@/lib/markup/text-offset";
import { reduceAgentComplete, reduceSubagentData, reduceSubagentEnded, reduceSubagentStarted } from "./reduce-subagent";

/**
 * The stored-shape reducer: the server keeps the running turn in memory with it and
 * persists from it, so what a reload rebuilds (`docFromTurn`) is what the live stream
 * built. Pure and idempotent — applying an event twice, or replaying an overlap, returns
 * the same turn object.
 */

export function newTurn(input: { sessionId: string; turnId: string; prompt: string; createdAt: string }): ChatTurn {
  return {
    turnId: input.turnId,
    sessionId: input.sessionId,
    prompt: input.prompt,
    response: "",
    toolCalls: [],
    stats: emptyStats(),
    status: "running",
    createdAt: input.createdAt,
    updatedAt: input.createdAt,
  };
}

export function applyEventToTurn(turn: ChatTurn, event: AgentEvent): ChatTurn {
  if (event.turnId !== turn.turnId) return turn;
  switch (event.type) {
    case "turn:started":
      return turn;
    case "turn:token": {
      const response = appendAtOffset(turn.response, event.offset, event.text);
      return response === undefined ? turn : { ...turn, response };
    }
    case "tool:call":
      return reduceToolCall(turn, event);
    case "tool:result":
      return reduceToolResult(turn, event);
    case "subagent_started":
      return reduceSubagentStarted(turn, event);
    case "subagent_data":
      return reduceSubagentData(turn, event);
    case "subagent_completed":
    case "subagent_error":
      return reduceSubagentEnded(turn, event);
    case "agent:complete":
      return reduceAgentComplete(turn, event);
    case "turn:usage":
      return turn.status !== "running" || deepEqual(turn.stats, event.stats) ? turn : { ...turn, stats: event.stats };
    case "turn:ended":
      return reduceTurnEnded(turn, event);
  }
}

/** Why: records the master's call with its text offset; a repeat updates it by callId. */
function reduceToolCall(turn: ChatTurn, event: AgentEventOf<"tool:call">): ChatTurn {
  const index = turn.toolCalls.findIndex((c) => c.callId === event.callId);
  const existing = turn.toolCalls[index];
  if (existing) {
    if (existing.name === event.name && existing.parameters === event.parameters) return turn;
    const toolCalls = turn.toolCalls.slice();
    toolCalls[index] = { ...existing, name: event.name, parameters: event.parameters };
    return { ...turn, toolCalls };
  }
  const call: ToolCall = {
    callId: event.callId,
    name: event.name,
    parameters: event.parameters,
    response: "",
    responseSize: 0,
    status: "running",
    textOffset: event.textOffset,
  };
  return { ...turn, toolCalls: [...turn.toolCalls, call] };
}

function reduceToolResult(turn: ChatTurn, event: AgentEventOf<"tool:result">): ChatTurn {
  const index = turn.toolCalls.findIndex((c) => c.callId === event.callId);
  const existing = turn.toolCalls[index];
  if (!existing) return turn;
  const { response, responseSize, status } = event;
  if (existing.response === response && existing.responseSize === responseSize && existing.status === status) {
    return turn;
  }
  const toolCalls = turn.toolCalls.slice();
  toolCalls[index] = { ...existing, response, responseSize, status };
  return { ...turn, toolCalls };
}

/**
 * Why: the first `turn:ended` settles status, stats and error; its response completes any
 * text not streamed (by offset), and runs or calls still marked running are closed, as the
 * markup transform does.
 */
function reduceTurnEnded(turn: ChatTurn, event: AgentEventOf<"turn:ended">): ChatTurn {
  let next = turn;
  const response = appendAtOffset(turn.response, 0, event.response);
  if (response !== undefined) next = { ...next, response };
  const info = { ...sweepOutcome(event.status), endedAt: event.endedAt };
  const toolCalls = mapShared(next.toolCalls, (call) => sweepCall(call, info));
  if (toolCalls !== next.toolCalls) next = { ...next, toolCalls };
  if (turn.status !== "running") return next;
  next = { ...next, status: event.status, stats: event.stats, updatedAt: event.endedAt };
  if (event.error !== undefined) next.error = event.error;
  return next;
}

function sweepCall(call: ToolCall, info: SweepInfo): ToolCall {
  const process = call.subagent && sweepProcess(call.subagent, info);
  if (call.status !== "running" && process === call.subagent) return call;
  const next: ToolCall = { ...call, status: call.status === "running" ? "error" : call.status };
  if (process) next.subagent = process;
  return next;
}

function sweepProcess(process: SubagentProcess, info: SweepInfo): SubagentProcess {
  const toolCalls = mapShared(process.toolCalls, (call) => sweepCall(call, info));
  if (process.status !== "running") return toolCalls === process.toolCalls ? process : { ...process, toolCalls };
  return { ...process, toolCalls, status: "error", endReason: info.endReason, error: info.error, endedAt: info.endedAt };
}
