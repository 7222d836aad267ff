import type { AgentEventOf, ChatTurn, SubagentDataPayload, SubagentProcess, ToolCall } from "@/lib/contracts";
import { emptyStats } from "@/lib/contracts";
import { deepEqual } from "@/lib/markup/deep-equal";
import { appendAtOffset } from "@/lib/markup/text-offset";
import { callAt, callPathInTurn, runPathInTurn, updateCallAt, updateProcess } from "./process-path";

/**
 * Subagent events folded into the stored turn: each process lives in the tool call that
 * spawned it. The rules mirror the markup transforms exactly (first start wins, offsets
 * for text, first terminal event wins, `agent:complete` replaces the process) so a doc
 * rebuilt from this turn equals the live one.
 */

/** Why: records the new process on its spawning call; a second start changes nothing. */
export function reduceSubagentStarted(turn: ChatTurn, event: AgentEventOf<"subagent_started">): ChatTurn {
  if (runPathInTurn(turn, event.runId)) return turn;
  const path = callPathInTurn(turn, event.parentRunId, event.callId);
  if (!path || callAt(turn, path)!.subagent) return turn;
  const process: SubagentProcess = {
    runId: event.runId,
    parentRunId: event.parentRunId,
    depth: event.depth,
    name: event.name,
    task: event.task,
    prompt: event.prompt,
    response: "",
    toolCalls: [],
    stats: emptyStats(),
    status: "running",
    startedAt: event.startedAt,
  };
  return updateCallAt(turn, path, (call) => ({ ...call, subagent: process }));
}

/** Why: the subagent's tool calls, text, reasoning and usage accumulate in its process. */
export function reduceSubagentData(turn: ChatTurn, event: AgentEventOf<"subagent_data">): ChatTurn {
  return updateProcess(turn, event.runId, (process) => applyData(process, event.data));
}

function applyData(process: SubagentProcess, data: SubagentDataPayload): SubagentProcess {
  switch (data.kind) {
    case "tool_call": {
      const index = process.toolCalls.findIndex((c) => c.callId === data.callId);
      const existing = process.toolCalls[index];
      if (!existing) {
        const call: ToolCall = {
          callId: data.callId,
          name: data.name,
          parameters: data.parameters,
          response: "",
          responseSize: 0,
          status: "running",
          textOffset: data.textOffset,
        };
        return { ...process, toolCalls: [...process.toolCalls, call] };
      }
      if (existing.name === data.name && existing.parameters === data.parameters) return process;
      return withCall(process, index, { ...existing, name: data.name, parameters: data.parameters });
    }
    case "tool_result": {
      const index = process.toolCalls.findIndex((c) => c.callId === data.callId);
      const existing = process.toolCalls[index];
      if (!existing) return process;
      const { response, responseSize, status } = data;
      if (existing.response === response && existing.responseSize === responseSize && existing.status === status) {
        return process;
      }
      return withCall(process, index, { ...existing, response, responseSize, status });
    }
    case "token": {
      if (process.status !== "running") return process;
      const response = appendAtOffset(process.response, data.offset, data.text);
      return response === undefined ? process : { ...process, response };
    }
    case "thinking": {
      if (process.status !== "running") return process;
      const thinking = appendAtOffset(process.thinking ?? "", data.offset, data.text);
      return thinking === undefined ? process : { ...process, thinking };
    }
    case "usage": {
      if (process.status !== "running" || data.steps < process.stats.steps) return process;
      const stats = { ...process.stats, chat: data.chat, system: data.system, steps: data.steps };
      return deepEqual(stats, process.stats) ? process : { ...process, stats };
    }
  }
}

/** Why: the first terminal event settles the process; replays cannot flip it back. */
export function reduceSubagentEnded(
  turn: ChatTurn,
  event: AgentEventOf<"subagent_completed"> | AgentEventOf<"subagent_error">,
): ChatTurn {
  return updateProcess(turn, event.runId, (process) => {
    if (process.status !== "running") return process;
    const ended = { stats: event.stats, endReason: event.endReason, endedAt: event.endedAt };
    if (event.type === "subagent_completed") {
      return { ...process, ...ended, status: "success", response: event.response };
    }
    return { ...process, ...ended, status: "error", error: event.error };
  });
}

/** Why (seed 000): store the clean response on the call and the full process beside it. */
export function reduceAgentComplete(turn: ChatTurn, event: AgentEventOf<"agent:complete">): ChatTurn {
  const path = callPathInTurn(turn, event.parentRunId, event.callId);
  if (!path) return turn;
  const call = callAt(turn, path)!;
  const same = call.response === event.response && call.responseSize === event.responseSize;
  if (same && deepEqual(call.subagent, event.subagent)) return turn;
  return updateCallAt(turn, path, (c) => ({
    ...c,
    response: event.response,
    responseSize: event.responseSize,
    subagent: event.subagent,
  }));
}

function withCall(process: SubagentProcess, index: number, call: ToolCall): SubagentProcess {
  const toolCalls = process.toolCalls.slice();
  toolCalls[index] = call;
  return { ...process, toolCalls };
}
