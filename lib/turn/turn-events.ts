import type { AgentData, AgentEvent, ChatTurn, Steer, Step, SubagentProcess, ToolCall, TurnStats } from "@/lib/contracts";
import { dataEvent, type RunRef } from "./data-event";

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
  const events: AgentEvent[] = [
    {
      type: "turn:started",
      turnId,
      prompt: turn.prompt,
      createdAt: turn.createdAt,
      ...(turn.model !== undefined ? { model: turn.model } : {}),
      ...(turn.parentTurnId !== undefined ? { parentTurnId: turn.parentTurnId } : {}),
      ...(turn.sentBy !== undefined ? { sentBy: turn.sentBy } : {}),
      ...(turn.attachments?.length ? { attachments: turn.attachments } : {}),
      ...(turn.budget ? { budget: turn.budget } : {}),
    },
  ];
  const full = (runId: string | null, call: ToolCall) => {
    const text = fullOutput?.(runId, call.callId);
    return text !== undefined && text.length > call.response.length ? { fullResponse: text } : {};
  };

  /** Everything one agent did, the master or a subagent alike; spawned runs nest where their call is. */
  const agentEvents = (run: RunRef, agent: { steps: readonly Step[]; stats: TurnStats; steering?: readonly Steer[] }) => {
    const runId = run?.runId ?? null;
    const emit = (data: AgentData) => events.push(dataEvent(turnId, run, data));
    (agent.steering ?? []).forEach((steer, index) =>
      emit({ kind: "steer", step: steer.step, index, message: steer.message, at: steer.at }),
    );
    agent.steps.forEach((step, index) => {
      if (step.thinking) emit({ kind: "thinking", step: index, offset: 0, text: step.thinking });
      if (step.text) emit({ kind: "token", step: index, offset: 0, text: step.text });
      for (const call of step.toolCalls) {
        const { callId, name, parameters } = call;
        emit({ kind: "tool_call", step: index, callId, name, parameters, ...atOf(call.startedAt) });
        if (call.approval) emit({ kind: "approval", callId, approval: call.approval });
        call.inputs?.forEach((input, index) => emit({ kind: "input", callId, index, input }));
        if (call.subagent) processEvents(call.subagent, call);
        emit({
          kind: "tool_result",
          callId,
          response: call.response,
          responseSize: call.responseSize,
          status: call.status,
          ...full(runId, call),
          ...atOf(call.endedAt),
        });
      }
      // A step's times travel on the usage event its end published; the stats it carries
      // here are overwritten by the run's or turn's end, which follows.
      if (step.startedAt !== undefined && step.endedAt !== undefined) {
        emit({ kind: "usage", stats: agent.stats, stepTiming: { step: index, startedAt: step.startedAt, endedAt: step.endedAt } });
      }
    });
  };

  const processEvents = (process: SubagentProcess, spawn: ToolCall) => {
    const { runId, parentRunId, depth } = process;
    const run = { runId, parentRunId, depth };
    events.push({
      type: "subagent_started",
      turnId,
      ...run,
      callId: spawn.callId,
      name: process.name,
      task: process.task,
      prompt: process.prompt,
      startedAt: process.startedAt,
      ...(process.model !== undefined ? { model: process.model } : {}),
      ...(process.definition !== undefined ? { definition: process.definition } : {}),
      ...(process.retryOf !== undefined ? { retryOf: process.retryOf } : {}),
      ...(process.budget !== undefined ? { budget: process.budget } : {}),
    });
    agentEvents(run, process);
    const ended = { turnId, ...run, stats: process.stats, endedAt: process.endedAt ?? process.startedAt };
    if (process.status === "success")
      events.push({ type: "subagent_completed", ...ended, response: process.response, endReason: "completed" });
    else
      events.push({
        type: "subagent_error",
        ...ended,
        error: process.error ?? "Failed.",
        endReason: process.endReason === "completed" ? "failed" : (process.endReason ?? "failed"),
      });
    events.push({
      type: "agent:complete",
      turnId,
      callId: spawn.callId,
      runId,
      parentRunId,
      response: spawn.response,
      responseSize: spawn.responseSize,
    });
  };

  agentEvents(null, turn);
  events.push({
    type: "turn:ended",
    turnId,
    status: turn.status,
    stats: turn.stats,
    ...(turn.error !== undefined ? { error: turn.error } : {}),
    ...(turn.endReason !== undefined && turn.endReason !== "completed" ? { endReason: turn.endReason } : {}),
    endedAt: turn.endedAt ?? turn.createdAt,
  });
  return events;
}

const atOf = (at: string | undefined) => (at !== undefined ? { at } : {});
