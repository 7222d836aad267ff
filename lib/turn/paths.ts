import type { ChatTurn, Steer, Step, SubagentProcess, ToolCall, TurnStats } from "@/lib/contracts";

/**
 * Addressing inside a turn. A call's path is `[step, call, step, call, …]`: the first
 * pair picks a master call, each further pair a call inside the subagent process spawned
 * by the call before it. A process's path is the path of the call that spawned it.
 * Updates copy only the objects on the path, so untouched panels keep their identity
 * (React skips them) and an event costs the same at 1K or 100K characters.
 */
export type CallPath = readonly number[];

/** Anything that acts in steps: the master (the turn itself) or a subagent process. */
export interface Agent {
  steps: Step[];
  stats: TurnStats;
  status: string;
  steering?: Steer[];
}

/** A change to an agent, whichever it is; the same agent comes back when nothing changed. */
export type AgentUpdate = <A extends Agent>(agent: A) => A;

export function callAt(agent: Agent, path: CallPath): ToolCall | undefined {
  let call: ToolCall | undefined;
  let owner: Agent | undefined = agent;
  for (let i = 0; i + 1 < path.length && owner; i += 2) {
    call = owner.steps[path[i]!]?.toolCalls[path[i + 1]!];
    if (!call) return undefined;
    owner = i + 2 < path.length ? call.subagent : undefined;
  }
  return call;
}

/**
 * callId → [step, call], per steps array: a cache, not state, so that finding a call does
 * not scan (a reply of thousands of calls would make its fold quadratic). Calls are only
 * appended and never move, so a version of the steps made from another shares its index
 * (`inheritCallIndex`) and adds its new calls to it (`noteCall`). Versions that branched
 * from one another may then see each other's entries: a hit is checked against the steps
 * at hand and a wrong one falls back to a scan; a miss is final, since every version that
 * shares the index wrote its calls into it. Steps made elsewhere get an index on first use.
 */
type CallIndex = Map<string, readonly [number, number]>;
const callIndexes = new WeakMap<readonly Step[], CallIndex>();

function callIndexOf(steps: readonly Step[]): CallIndex {
  let index = callIndexes.get(steps);
  if (!index) {
    index = new Map();
    // Newest step first, first call of a step first: the call findCall has always meant.
    for (let s = steps.length - 1; s >= 0; s--)
      steps[s]!.toolCalls.forEach((call, c) => {
        if (!index!.has(call.callId)) index!.set(call.callId, [s, c]);
      });
    callIndexes.set(steps, index);
  }
  return index;
}

/** `to` is a version of `from` with every call where it was: it shares `from`'s index. */
export function inheritCallIndex(from: readonly Step[], to: readonly Step[]): void {
  const index = callIndexes.get(from);
  if (index && from !== to) callIndexes.set(to, index);
}

/** Call `callId` was appended to `steps` at [s, c]. */
export function noteCall(steps: readonly Step[], callId: string, s: number, c: number): void {
  callIndexes.get(steps)?.set(callId, [s, c]);
}

/** Where call `callId` sits among an agent's steps (newest step first: that is where calls land). */
export function findCall(agent: Agent, callId: string): [number, number] | undefined {
  const at = callIndexOf(agent.steps).get(callId);
  if (!at) return undefined;
  if (agent.steps[at[0]]?.toolCalls[at[1]]?.callId === callId) return [at[0], at[1]];
  return scanForCall(agent, callId);
}

function scanForCall(agent: Agent, callId: string): [number, number] | undefined {
  for (let s = agent.steps.length - 1; s >= 0; s--) {
    const index = agent.steps[s]!.toolCalls.findIndex((c) => c.callId === callId);
    if (index >= 0) return [s, index];
  }
  return undefined;
}

/**
 * runId → path, per turn id: a cache, not state (the turn itself stays plain JSON). Paths
 * never move (steps and calls are only appended), so an entry stays true in every later
 * version of the turn; each lookup is verified anyway and falls back to a walk, which
 * also makes forgetting the oldest turns' entries harmless.
 */
const runIndex = new Map<string, Map<string, number[]>>();
const INDEXED_TURNS = 256;

export function rememberRun(turn: ChatTurn, runId: string, path: CallPath): void {
  let index = runIndex.get(turn.turnId);
  if (!index) {
    if (runIndex.size >= INDEXED_TURNS) runIndex.delete(runIndex.keys().next().value!);
    runIndex.set(turn.turnId, (index = new Map()));
  }
  index.set(runId, [...path]);
}

/** Path of run `runId`'s process, wherever it is nested. */
export function runPath(turn: ChatTurn, runId: string): CallPath | undefined {
  const known = runIndex.get(turn.turnId)?.get(runId);
  if (known && callAt(turn, known)?.subagent?.runId === runId) return known;
  const found = walkForRun(turn, runId, []);
  if (found) rememberRun(turn, runId, found);
  return found;
}

function walkForRun(agent: Agent, runId: string, prefix: number[]): number[] | undefined {
  for (let s = 0; s < agent.steps.length; s++) {
    const calls = agent.steps[s]!.toolCalls;
    for (let c = 0; c < calls.length; c++) {
      const process = calls[c]!.subagent;
      if (!process) continue;
      if (process.runId === runId) return [...prefix, s, c];
      const found = walkForRun(process, runId, [...prefix, s, c]);
      if (found) return found;
    }
  }
  return undefined;
}

export function processInTurn(turn: ChatTurn, runId: string): SubagentProcess | undefined {
  const path = runPath(turn, runId);
  return path && callAt(turn, path)?.subagent;
}

/** Path of call `callId` made by run `parentRunId` (`null` = the master). */
export function callPathIn(turn: ChatTurn, parentRunId: string | null, callId: string): CallPath | undefined {
  const parentPath = parentRunId === null ? [] : runPath(turn, parentRunId);
  if (!parentPath) return undefined;
  const owner = parentRunId === null ? turn : callAt(turn, parentPath)?.subagent;
  const at = owner && findCall(owner, callId);
  return at && [...parentPath, ...at];
}

/** Replaces the call at `path` with `fn(call)`; the same agent comes back when nothing changed. */
export function updateCallAt<A extends Agent>(agent: A, path: CallPath, fn: (call: ToolCall) => ToolCall, at = 0): A {
  const s = path[at]!;
  const c = path[at + 1]!;
  const step = agent.steps[s];
  const call = step?.toolCalls[c];
  if (!step || !call) return agent;
  let next: ToolCall;
  if (at + 2 >= path.length) next = fn(call);
  else {
    if (!call.subagent) return agent;
    const process = updateCallAt(call.subagent, path, fn, at + 2);
    next = process === call.subagent ? call : { ...call, subagent: process };
  }
  if (next === call) return agent;
  const toolCalls = step.toolCalls.slice();
  toolCalls[c] = next;
  const steps = agent.steps.slice();
  steps[s] = { ...step, toolCalls };
  inheritCallIndex(agent.steps, steps);
  return { ...agent, steps };
}

/** Replaces run `runId`'s process with `fn(process)`; unknown runs leave the turn as it is. */
export function updateProcess(turn: ChatTurn, runId: string, fn: (process: SubagentProcess) => SubagentProcess): ChatTurn {
  const path = runPath(turn, runId);
  if (!path) return turn;
  return updateCallAt(turn, path, (call) => {
    const process = fn(call.subagent!);
    return process === call.subagent ? call : { ...call, subagent: process };
  });
}

/** Replaces the agent `runId` names (null: the master, i.e. the turn itself) with `fn(agent)`. */
export function updateAgent(turn: ChatTurn, runId: string | null, fn: AgentUpdate): ChatTurn {
  return runId === null ? fn(turn) : updateProcess(turn, runId, fn);
}
