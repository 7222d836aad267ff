import type {
  RunsEnd,
  AgentData,
  AgentEvent,
  Approval,
  AgentEventOf,
  InputRequest,
  ChatTurn,
  Step,
  SubagentProcess,
  ToolCall,
  TurnStatus,
} from "@/lib/contracts";
import { emptyStats } from "@/lib/contracts";
import { deepEqual, mapShared } from "./deep-equal";
import {
  type Agent,
  callAt,
  callPathIn,
  findCall,
  inheritCallIndex,
  noteCall,
  rememberRun,
  runPath,
  updateAgent,
  updateCallAt,
  updateProcess,
} from "./paths";
import { appendAtOffset } from "./text-offset";

/**
 * The one reducer of a turn: `(turn, event) → turn`. The server folds with it before
 * storing, the browser folds with it as events arrive and after a replay, the agent
 * runtime folds with it to record each subagent's process, and the rebuild from MongoDB
 * must produce what it produced. Pure, with structural sharing (only the objects on the
 * path to a change are copied) and idempotent: text carries its step and offset, a
 * repeated start or call changes nothing, the first terminal event wins — so an event
 * applied twice, or replayed after a reconnect, returns the very same turn object.
 *
 * Events of a run the turn does not know are ignored: a fold always starts from a
 * consistent snapshot, so an unknown run means history the turn was built without.
 */

export function newTurn(input: { sessionId: string; turnId: string; prompt: string; createdAt: string }): ChatTurn {
  return {
    turnId: input.turnId,
    sessionId: input.sessionId,
    prompt: input.prompt,
    steps: [],
    stats: emptyStats(),
    status: "running",
    createdAt: input.createdAt,
  };
}

/** The turn a `turn:started` event opens. */
export function turnFromStart(event: AgentEventOf<"turn:started">, sessionId: string): ChatTurn {
  const turn = newTurn({ sessionId, turnId: event.turnId, prompt: event.prompt, createdAt: event.createdAt });
  return {
    ...turn,
    ...(event.model !== undefined ? { model: event.model } : {}),
    ...(event.parentTurnId !== undefined ? { parentTurnId: event.parentTurnId } : {}),
    ...(event.sentBy !== undefined ? { sentBy: event.sentBy } : {}),
    ...(event.attachments?.length ? { attachments: event.attachments } : {}),
    ...(event.budget ? { budget: event.budget } : {}),
  };
}

export function applyEvent(turn: ChatTurn, event: AgentEvent): ChatTurn {
  if (event.turnId !== turn.turnId) return turn;
  switch (event.type) {
    case "turn:started":
      return turn;
    case "turn:data":
    case "subagent_data":
      return updateAgent(turn, event.runId, (agent) => applyData(agent, event.data));
    case "subagent_started":
      return startSubagent(turn, event);
    case "subagent_completed":
    case "subagent_error":
      return updateProcess(turn, event.runId, (process) => endProcess(process, event));
    case "agent:complete":
      return completeAgent(turn, event);
    case "turn:ended":
      return endTurn(turn, event);
  }
}

/** What one agent did, the master or a subagent alike. */
function applyData<A extends Agent>(agent: A, data: AgentData): A {
  switch (data.kind) {
    case "token":
    case "thinking":
      if (agent.status !== "running") return agent;
      return appendText(agent, data.step, data.kind === "token" ? "text" : "thinking", data.offset, data.text);
    case "tool_call":
      return addCall(agent, data.step, data);
    case "tool_result":
      return setResult(agent, data.callId, data);
    case "approval":
      return setApproval(agent, data.callId, data.approval);
    case "input":
      return setInput(agent, data.callId, data.index, data.input);
    case "usage": {
      if (agent.status !== "running") return agent;
      const timed = data.stepTiming ? timeStep(agent, data.stepTiming) : agent;
      // Usage is a running total: the latest replaces the last; a replayed older one is stale.
      if (data.stats.steps < timed.stats.steps) return timed;
      return deepEqual(data.stats, timed.stats) ? timed : { ...timed, stats: data.stats };
    }
    case "steer": {
      // Steers append in order; one whose place is taken (a replay) or not yet reached changes nothing.
      const steering = agent.steering ?? [];
      if (data.index !== steering.length) return agent;
      return { ...agent, steering: [...steering, { step: data.step, message: data.message, at: data.at }] };
    }
  }
}

/** Why: text accumulates per step by offset, so duplicates and overlaps append nothing twice. */
function appendText<A extends Agent>(agent: A, index: number, field: "text" | "thinking", offset: number, text: string): A {
  const step = agent.steps[index] ?? emptyStep();
  const next = appendAtOffset(step[field], offset, text);
  if (next === undefined) return agent;
  return withStep(agent, index, field === "text" ? { ...step, text: next } : { ...step, thinking: next });
}

/** Why: a call appears as soon as the model asks for it (audit while it runs); repeated, it updates by callId. */
function addCall<A extends Agent>(agent: A, index: number, input: { callId: string; name: string; parameters: string; at?: string }): A {
  const { callId, name, parameters } = input;
  const at = findCall(agent, callId);
  if (at) {
    const call = callAt(agent, at)!;
    if (call.name === name && call.parameters === parameters) return agent;
    return updateCallAt(agent, at, (c) => ({ ...c, name, parameters }));
  }
  const step = agent.steps[index] ?? emptyStep();
  const call: ToolCall = { callId, name, parameters, response: "", responseSize: 0, status: "running" };
  if (input.at !== undefined) call.startedAt = input.at;
  const next = withStep(agent, index, { ...step, toolCalls: step.toolCalls.concat([call]) });
  noteCall(next.steps, callId, index, step.toolCalls.length);
  return next;
}

/** Why: the preview, full size and status land on the call; the whole text never enters the turn. */
function setResult<A extends Agent>(
  agent: A,
  callId: string,
  result: { response: string; responseSize: number; status: ToolCall["status"]; at?: string },
): A {
  const where = findCall(agent, callId);
  if (!where) return agent;
  const { response, responseSize, status, at } = result;
  return updateCallAt(agent, where, (call) =>
    call.response === response && call.responseSize === responseSize && call.status === status && (at === undefined || call.endedAt === at)
      ? call
      : { ...call, response, responseSize, status, ...(at !== undefined ? { endedAt: at } : {}) },
  );
}

/** Why: a step's times arrive once it ended (its usage event); a replay sets the same times and changes nothing. */
function timeStep<A extends Agent>(agent: A, timing: { step: number; startedAt: string; endedAt: string }): A {
  const step = agent.steps[timing.step] ?? emptyStep();
  if (step.startedAt === timing.startedAt && step.endedAt === timing.endedAt) return agent;
  return withStep(agent, timing.step, { ...step, startedAt: timing.startedAt, endedAt: timing.endedAt });
}

/**
 * Why: an approval moves from pending to one end state and never back, so a replayed
 * `pending` after the decision, or a second decision, changes nothing.
 */
function setApproval<A extends Agent>(agent: A, callId: string, approval: Approval): A {
  const where = findCall(agent, callId);
  if (!where) return agent;
  return updateCallAt(agent, where, (call) => (firstDecisionWins(call.approval, approval) ? { ...call, approval } : call));
}

/** Whether `next` may replace `current`: only a pending approval changes, and only to something new. */
export function firstDecisionWins(current: Approval | undefined, next: Approval): boolean {
  return !current || (current.state === "pending" && !deepEqual(current, next));
}

/**
 * Why: a call's questions keep their order (`index`); each moves from pending to one end
 * and never back, like an approval, so a replayed question or a second answer changes
 * nothing. A question whose place is not reached yet (an earlier one missing) is ignored:
 * events arrive in order, so that means history the turn was built without.
 */
function setInput<A extends Agent>(agent: A, callId: string, index: number, input: InputRequest): A {
  const where = findCall(agent, callId);
  if (!where) return agent;
  return updateCallAt(agent, where, (call) => {
    const inputs = call.inputs ?? [];
    if (index > inputs.length) return call;
    if (index < inputs.length && !firstAnswerWins(inputs[index]!, input)) return call;
    const next = inputs.slice();
    next[index] = input;
    return { ...call, inputs: next };
  });
}

/** Whether `next` may replace `current`: only a pending question changes, and only to something new. */
export function firstAnswerWins(current: InputRequest, next: InputRequest): boolean {
  return current.state === "pending" && !deepEqual(current, next);
}

/** Why: the new process sits in the call that spawned it; a second start changes nothing. */
function startSubagent(turn: ChatTurn, event: AgentEventOf<"subagent_started">): ChatTurn {
  if (runPath(turn, event.runId)) return turn;
  const path = callPathIn(turn, event.parentRunId, event.callId);
  if (!path || callAt(turn, path)!.subagent) return turn;
  const process: SubagentProcess = {
    runId: event.runId,
    parentRunId: event.parentRunId,
    depth: event.depth,
    name: event.name,
    task: event.task,
    prompt: event.prompt,
    steps: [],
    response: "",
    stats: emptyStats(),
    status: "running",
    startedAt: event.startedAt,
  };
  if (event.model !== undefined) process.model = event.model;
  if (event.definition !== undefined) process.definition = { ...event.definition };
  if (event.retryOf !== undefined) process.retryOf = event.retryOf;
  if (event.budget !== undefined) process.budget = event.budget;
  const next = updateCallAt(turn, path, (call) => ({ ...call, subagent: process }));
  rememberRun(next, event.runId, path);
  return next;
}

/** Why: the first terminal event settles the process; a replayed one cannot flip it back. */
function endProcess(process: SubagentProcess, event: AgentEventOf<"subagent_completed"> | AgentEventOf<"subagent_error">): SubagentProcess {
  if (process.status !== "running") return process;
  const ended = { stats: event.stats, endReason: event.endReason, endedAt: event.endedAt };
  if (event.type === "subagent_completed") return { ...process, ...ended, status: "success", response: event.response };
  return { ...process, ...ended, status: "error", error: event.error };
}

/**
 * Why: the clean result the parent's model read lands on the spawning call; the process
 * itself was folded from the run's own events.
 */
function completeAgent(turn: ChatTurn, event: AgentEventOf<"agent:complete">): ChatTurn {
  const path = callPathIn(turn, event.parentRunId, event.callId);
  if (!path) return turn;
  const call = callAt(turn, path)!;
  if (call.response === event.response && call.responseSize === event.responseSize) return turn;
  return updateCallAt(turn, path, (c) => ({ ...c, response: event.response, responseSize: event.responseSize }));
}

/**
 * Why: the first `turn:ended` settles status, stats and error, and closes every run and
 * call still marked running (cancel, crash, restart), so no spinner is left forever.
 */
function endTurn(turn: ChatTurn, event: AgentEventOf<"turn:ended">): ChatTurn {
  if (turn.status !== "running") return turn;
  const ended: ChatTurn = {
    ...endRunning(turn, event.runsEnd ?? runsEndOf(event.status), event.endedAt),
    status: event.status,
    stats: event.stats,
    endedAt: event.endedAt,
  };
  if (event.error !== undefined) ended.error = event.error;
  if (event.endReason !== undefined) ended.endReason = event.endReason;
  return ended;
}

/** How runs a turn left running are closed when it ends with `status`. */
export function runsEndOf(status: Exclude<TurnStatus, "running">): RunsEnd {
  const how = status === "completed" ? "ended" : status === "cancelled" ? "was cancelled" : "failed";
  return {
    endReason: status === "cancelled" ? "killed" : "failed",
    error: `The turn ${how} before this subagent finished.`,
    note: "The turn ended before anyone answered.",
  };
}

/**
 * The one rule for "end everything still running" under `agent`: each run still running
 * ends with `how`, each call still running is cancelled, each pending approval and each
 * question still waiting ends unanswered with `how.note`. The database's restart sweep (server/data/store.ts) writes
 * the same.
 */
export function endRunning<A extends Agent>(agent: A, how: RunsEnd, endedAt: string): A {
  const steps = mapShared(agent.steps, (step) => {
    const toolCalls = mapShared(step.toolCalls, (call) => endCall(call, how, endedAt));
    return toolCalls === step.toolCalls ? step : { ...step, toolCalls };
  });
  if (steps === agent.steps) return agent;
  inheritCallIndex(agent.steps, steps);
  return { ...agent, steps };
}

function endCall(call: ToolCall, how: RunsEnd, endedAt: string): ToolCall {
  const process = call.subagent && endProcessRunning(call.subagent, how, endedAt);
  const waiting = call.approval?.state === "pending";
  const asking = call.inputs?.some((input) => input.state === "pending") === true;
  if (call.status !== "running" && process === call.subagent && !waiting && !asking) return call;
  // A call still running was cut short, not failed: it never got a result.
  const next: ToolCall = { ...call, status: call.status === "running" ? "cancelled" : call.status };
  if (waiting) next.approval = { ...call.approval!, state: "cancelled", decidedAt: endedAt, note: how.note };
  if (asking) next.inputs = endPendingInputs(call.inputs!, endedAt, how.note);
  if (process) next.subagent = process;
  return next;
}

function endProcessRunning(process: SubagentProcess, how: RunsEnd, endedAt: string): SubagentProcess {
  const ended = endRunning(process, how, endedAt);
  if (ended.status !== "running") return ended;
  return { ...ended, status: "error", endReason: how.endReason, error: how.error, endedAt };
}

/** A call's questions with every one still waiting ended unanswered (a turn's end, the restart sweep). */
export function endPendingInputs(inputs: readonly InputRequest[], endedAt: string, note: string): InputRequest[] {
  return inputs.map((input) => (input.state === "pending" ? { ...input, state: "cancelled", answeredAt: endedAt, note } : input));
}

const emptyStep = (): Step => ({ text: "", thinking: "", toolCalls: [] });

/** Sets step `index`, creating the empty steps before it (a step with no text and no calls leaves no trace otherwise). */
function withStep<A extends Agent>(agent: A, index: number, step: Step): A {
  const steps = agent.steps.slice();
  for (let i = steps.length; i < index; i++) steps.push(emptyStep());
  steps[index] = step;
  // Calls keep their places (a step is replaced by a version of itself, or created empty).
  inheritCallIndex(agent.steps, steps);
  return { ...agent, steps };
}
