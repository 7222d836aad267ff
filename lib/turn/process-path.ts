import type { ChatTurn, SubagentProcess, ToolCall } from "@/lib/contracts";

/**
 * Addressing inside a stored turn: `[toolIndex, toolIndex, …]`, the first index into the
 * turn's tool calls, each further one into the tool calls of the subagent process spawned
 * by the call before it. A process's path is the path of its spawning call. Updates copy
 * only the objects on the path.
 */
export type CallPath = readonly number[];

export function callAt(turn: ChatTurn, path: CallPath): ToolCall | undefined {
  let call = turn.toolCalls[path[0] ?? -1];
  for (let i = 1; i < path.length && call; i++) call = call.subagent?.toolCalls[path[i]!];
  return call;
}

/** Path of run `runId`'s process; a walk bounded by the number of tool calls. */
export function runPathInTurn(turn: ChatTurn, runId: string): CallPath | undefined {
  const search = (calls: readonly ToolCall[], prefix: number[]): number[] | undefined => {
    for (let i = 0; i < calls.length; i++) {
      const process = calls[i]!.subagent;
      if (!process) continue;
      if (process.runId === runId) return [...prefix, i];
      const found = search(process.toolCalls, [...prefix, i]);
      if (found) return found;
    }
    return undefined;
  };
  return search(turn.toolCalls, []);
}

/** Run `runId`'s process, wherever it is nested. */
export function processInTurn(turn: ChatTurn, runId: string): SubagentProcess | undefined {
  const path = runPathInTurn(turn, runId);
  return path && callAt(turn, path)?.subagent;
}

/** Path of tool call `callId` made by run `parentRunId` (`null` = the master). */
export function callPathInTurn(turn: ChatTurn, parentRunId: string | null, callId: string): CallPath | undefined {
  if (parentRunId === null) {
    const index = turn.toolCalls.findIndex((c) => c.callId === callId);
    return index < 0 ? undefined : [index];
  }
  const parent = runPathInTurn(turn, parentRunId);
  if (!parent) return undefined;
  const index = callAt(turn, parent)!.subagent!.toolCalls.findIndex((c) => c.callId === callId);
  return index < 0 ? undefined : [...parent, index];
}

/** Replaces the call at `path` with `fn(call)`; the same turn comes back when nothing changed. */
export function updateCallAt(turn: ChatTurn, path: CallPath, fn: (call: ToolCall) => ToolCall): ChatTurn {
  const toolCalls = updateWithin(turn.toolCalls, path, 0, fn);
  return toolCalls === turn.toolCalls ? turn : { ...turn, toolCalls };
}

function updateWithin(calls: ToolCall[], path: CallPath, at: number, fn: (call: ToolCall) => ToolCall): ToolCall[] {
  const index = path[at]!;
  const call = calls[index];
  if (!call) return calls;
  let next: ToolCall;
  if (at === path.length - 1) next = fn(call);
  else {
    const process = call.subagent;
    if (!process) return calls;
    const toolCalls = updateWithin(process.toolCalls, path, at + 1, fn);
    next = toolCalls === process.toolCalls ? call : { ...call, subagent: { ...process, toolCalls } };
  }
  if (next === call) return calls;
  const copy = calls.slice();
  copy[index] = next;
  return copy;
}

/** Replaces run `runId`'s process with `fn(process)`; unknown runs leave the turn as it is. */
export function updateProcess(
  turn: ChatTurn,
  runId: string,
  fn: (process: SubagentProcess) => SubagentProcess,
): ChatTurn {
  const path = runPathInTurn(turn, runId);
  if (!path) return turn;
  return updateCallAt(turn, path, (call) => {
    const process = fn(call.subagent!);
    return process === call.subagent ? call : { ...call, subagent: process };
  });
}
