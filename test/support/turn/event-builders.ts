import type { AgentData, AgentEvent, AgentEventOf, Approval, SubagentProcess, TurnStats } from "@/lib/contracts";

/** Terse builders for hand-written event tables in tests (turn "t1" unless given). */
const TURN = "t1";

export const STATS: TurnStats = {
  chat: { inputTokens: 10, outputTokens: 5 },
  system: { inputTokens: 0, outputTokens: 0 },
  steps: 2,
  runtimeMs: 1500,
  cost: 0.01,
};

export const ev = {
  started: (prompt = "hi"): AgentEvent => ({ type: "turn:started", turnId: TURN, prompt, createdAt: "2026-01-01T00:00:00.000Z" }),
  /** What the master did (`runId` null). */
  master: (data: AgentData, turnId = TURN): AgentEventOf<"turn:data"> => ({ type: "turn:data", turnId, runId: null, data }),
  token: (offset: number, text: string, step = 0, turnId = TURN) => ev.master({ kind: "token", step, offset, text }, turnId),
  thinking: (offset: number, text: string, step = 0, turnId = TURN) => ev.master({ kind: "thinking", step, offset, text }, turnId),
  call: (callId: string, step = 0, name = "subagent", parameters = "{}") =>
    ev.master({ kind: "tool_call", step, callId, name, parameters }),
  result: (callId: string, response: string, status: "success" | "error" = "success") =>
    ev.master({ kind: "tool_result", callId, response, responseSize: response.length, status }),
  spawn: (runId: string, callId: string, parentRunId: string | null = null, task = "look"): AgentEventOf<"subagent_started"> => ({
    type: "subagent_started",
    turnId: TURN,
    runId,
    parentRunId,
    depth: parentRunId ? 2 : 1,
    callId,
    name: "researcher",
    task,
    prompt: `Task: ${task}`,
    startedAt: "2026-01-01T00:00:01.000Z",
  }),
  data: (runId: string, data: AgentData, parentRunId: string | null = null): AgentEventOf<"subagent_data"> => ({
    type: "subagent_data",
    turnId: TURN,
    runId,
    parentRunId,
    depth: parentRunId ? 2 : 1,
    data,
  }),
  subToken: (runId: string, offset: number, text: string, step = 0) => ev.data(runId, { kind: "token", step, offset, text }),
  subThinking: (runId: string, offset: number, text: string, step = 0) => ev.data(runId, { kind: "thinking", step, offset, text }),
  subCall: (runId: string, callId: string, name = "grep", parameters = "{}", parentRunId: string | null = null, step = 0) =>
    ev.data(runId, { kind: "tool_call", step, callId, name, parameters }, parentRunId),
  subResult: (runId: string, callId: string, response: string) =>
    ev.data(runId, { kind: "tool_result", callId, response, responseSize: response.length, status: "success" }),
  steer: (runId: string, index: number, message: string, step = 1, parentRunId: string | null = null) =>
    ev.data(runId, { kind: "steer", step, index, message, at: `2026-01-01T00:00:0${5 + index}.000Z` }, parentRunId),
  usage: (runId: string, steps: number) =>
    ev.data(runId, {
      kind: "usage",
      stats: {
        chat: { inputTokens: steps * 10, outputTokens: steps },
        system: { inputTokens: 0, outputTokens: 0 },
        steps,
        runtimeMs: 0,
        cost: 0,
      },
    }),
  completed: (runId: string, response: string, parentRunId: string | null = null): AgentEventOf<"subagent_completed"> => ({
    type: "subagent_completed",
    turnId: TURN,
    runId,
    parentRunId,
    depth: parentRunId ? 2 : 1,
    response,
    stats: STATS,
    endReason: "completed",
    endedAt: "2026-01-01T00:00:09.000Z",
  }),
  failed: (runId: string, error: string, endReason: "failed" | "killed" = "failed"): AgentEventOf<"subagent_error"> => ({
    type: "subagent_error",
    turnId: TURN,
    runId,
    parentRunId: null,
    depth: 1,
    error,
    stats: STATS,
    endReason,
    endedAt: "2026-01-01T00:00:09.000Z",
  }),
  complete: (callId: string, run: { runId: string; parentRunId: string | null }, response: string): AgentEventOf<"agent:complete"> => ({
    type: "agent:complete",
    turnId: TURN,
    callId,
    runId: run.runId,
    parentRunId: run.parentRunId,
    response,
    responseSize: response.length,
  }),
  /** A call's approval, asked for or ended, as the agent `runId` publishes it (null: the master; a subagent at depth 1). */
  approval: (runId: string | null, callId: string, approval: Partial<Approval> = {}): AgentEvent => {
    const data: AgentData = {
      kind: "approval",
      callId,
      approval: { state: "pending", requestedAt: "2026-01-01T00:00:02.000Z", reason: "Fix it", ...approval },
    };
    return runId === null ? ev.master(data) : ev.data(runId, data);
  },
  usageTurn: () => ev.master({ kind: "usage", stats: STATS }),
  ended: (status: "completed" | "failed" | "cancelled", error?: string): AgentEventOf<"turn:ended"> => ({
    type: "turn:ended",
    turnId: TURN,
    status,
    stats: STATS,
    endedAt: "2026-01-01T00:01:00.000Z",
    ...(error === undefined ? {} : { error }),
  }),
};

/** A master that wrote "Hi " and spawned r1 via c1; r1 called grep c2 and spawned r2 via c3. */
export const NESTED_EVENTS: readonly AgentEvent[] = [
  ev.token(0, "Hi "),
  ev.call("c1"),
  ev.spawn("r1", "c1"),
  ev.subCall("r1", "c2"),
  ev.subCall("r1", "c3", "subagent"),
  ev.spawn("r2", "c3", "r1"),
];

/** A finished process as its events fold it: one step that answered. */
export function finishedProcess(runId: string, response: string, overrides: Partial<SubagentProcess> = {}): SubagentProcess {
  return {
    runId,
    parentRunId: null,
    depth: 1,
    name: "researcher",
    task: "look",
    prompt: "Task: look",
    response,
    steps: [{ text: response, thinking: "", toolCalls: [] }],
    stats: STATS,
    status: "success",
    endReason: "completed",
    startedAt: "2026-01-01T00:00:01.000Z",
    endedAt: "2026-01-01T00:00:09.000Z",
    ...overrides,
  };
}
