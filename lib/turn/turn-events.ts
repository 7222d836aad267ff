import type { AgentEvent, ChatTurn, Step, SubagentProcess, ToolCall } from "@/lib/contracts";

/**
 * The events of a finished turn, in an order the turn reducer folds back into that very
 * turn: what an import replays through the same writer live turns use, so an imported
 * chat is stored exactly as a live one would have been. `fullOutput` supplies the whole
 * text of a tool output longer than its preview (kept beside the call, "Show all").
 *
 * Only finished turns have such events: a running turn is still being written.
 */
export function eventsOfTurn(turn: ChatTurn, fullOutput?: (runId: string | null, callId: string) => string | undefined): AgentEvent[] {
  if (turn.status === "running") throw new Error(`turn ${turn.turnId} is still running`);
  const { turnId } = turn;
  const events: AgentEvent[] = [{ type: "turn:started", turnId, prompt: turn.prompt, createdAt: turn.createdAt }];
  const full = (runId: string | null, call: ToolCall) => {
    const text = fullOutput?.(runId, call.callId);
    return text !== undefined && text.length > call.response.length ? { fullResponse: text } : {};
  };

  const callEvents = (runId: string | null, call: ToolCall) => {
    if (call.approval) events.push({ type: "tool:approval", turnId, runId, callId: call.callId, approval: call.approval });
    if (call.subagent) processEvents(call.subagent, call);
    const result = { response: call.response, responseSize: call.responseSize, status: call.status, ...full(runId, call), ...atOf(call.endedAt) };
    if (runId === null) events.push({ type: "tool:result", turnId, callId: call.callId, ...result });
    else events.push({ type: "subagent_data", ...runRefOf(runId), data: { kind: "tool_result", callId: call.callId, ...result } });
  };

  const runRefs = new Map<string, { runId: string; parentRunId: string | null; depth: number }>();
  const processes = new Map<string, SubagentProcess>();
  const runRefOf = (runId: string) => ({ turnId, ...runRefs.get(runId)! });

  const stepEvents = (runId: string | null, steps: readonly Step[]) => {
    steps.forEach((step, index) => {
      if (runId === null) {
        if (step.text) events.push({ type: "turn:token", turnId, step: index, offset: 0, text: step.text });
      } else {
        if (step.thinking) events.push({ type: "subagent_data", ...runRefOf(runId), data: { kind: "thinking", step: index, offset: 0, text: step.thinking } });
        if (step.text) events.push({ type: "subagent_data", ...runRefOf(runId), data: { kind: "token", step: index, offset: 0, text: step.text } });
      }
      for (const call of step.toolCalls) {
        const { callId, name, parameters } = call;
        const at = atOf(call.startedAt);
        if (runId === null) events.push({ type: "tool:call", turnId, step: index, callId, name, parameters, ...at });
        else events.push({ type: "subagent_data", ...runRefOf(runId), data: { kind: "tool_call", step: index, callId, name, parameters, ...at } });
        callEvents(runId, call);
      }
      timingEvents(runId, step, index);
    });
  };

  // A step's times travel on the usage event its end published; the stats it carries here
  // are overwritten by the run's or turn's end, which follows.
  const timingEvents = (runId: string | null, step: Step, index: number) => {
    if (step.startedAt === undefined || step.endedAt === undefined) return;
    const stepTiming = { step: index, startedAt: step.startedAt, endedAt: step.endedAt };
    if (runId === null) {
      events.push({ type: "turn:usage", turnId, stats: turn.stats, stepTiming });
      return;
    }
    const { stats } = processes.get(runId)!;
    events.push({ type: "subagent_data", ...runRefOf(runId), data: { kind: "usage", chat: stats.chat, system: stats.system, steps: stats.steps, stepTiming } });
  };

  const processEvents = (process: SubagentProcess, spawn: ToolCall) => {
    const { runId, parentRunId, depth } = process;
    runRefs.set(runId, { runId, parentRunId, depth });
    processes.set(runId, process);
    events.push({
      type: "subagent_started",
      turnId,
      runId,
      parentRunId,
      depth,
      callId: spawn.callId,
      name: process.name,
      task: process.task,
      prompt: process.prompt,
      startedAt: process.startedAt,
      ...(process.model !== undefined ? { model: process.model } : {}),
      ...(process.retryOf !== undefined ? { retryOf: process.retryOf } : {}),
    });
    (process.steering ?? []).forEach((steer, index) => {
      events.push({ type: "subagent_data", ...runRefOf(runId), data: { kind: "steer", step: steer.step, index, message: steer.message, at: steer.at } });
    });
    stepEvents(runId, process.steps);
    const ended = { ...runRefOf(runId), stats: process.stats, endedAt: process.endedAt ?? process.startedAt };
    if (process.status === "success") events.push({ type: "subagent_completed", ...ended, response: process.response, endReason: "completed" });
    else events.push({ type: "subagent_error", ...ended, error: process.error ?? "Failed.", endReason: process.endReason === "completed" ? "failed" : (process.endReason ?? "failed") });
    // The stored truth, as live: the whole process, beside the clean result its parent read.
    events.push({ type: "agent:complete", turnId, callId: spawn.callId, runId, parentRunId, response: spawn.response, responseSize: spawn.responseSize, subagent: process });
  };

  stepEvents(null, turn.steps);
  events.push({
    type: "turn:ended",
    turnId,
    status: turn.status,
    stats: turn.stats,
    ...(turn.error !== undefined ? { error: turn.error } : {}),
    endedAt: turn.endedAt ?? turn.createdAt,
  });
  return events;
}

const atOf = (at: string | undefined) => (at !== undefined ? { at } : {});
