import type { AgentEvent, TurnStats } from "@/lib/contracts";
import { emptyStats } from "@/lib/contracts";
import type { TurnInput, TurnResult } from "@/lib/agent/runtime";
import { newTurn } from "@/lib/turn/reduce";
import type { TurnHandle, TurnRunner } from "@/server/sessions/turn-runner";

/**
 * A stand-in for the agent runtime that publishes a fixed script at a controlled pace:
 * one subagent streaming `events` response tokens, framed by the events a real turn has
 * around them. Every token has the same length, so a receiver recovers the token's index
 * from its offset and looks up when it was published — latency without stamping anything
 * into the payload.
 */
export const TOKEN_TEXT = "lorem ipsum ";

export interface TurnPlan {
  events: number;
  /** Tokens per second; undefined publishes as fast as the server takes them. */
  ratePerSecond?: number;
  /** Publish time of token i, `performance.now()`, filled in as the turn runs. */
  sentAt: Float64Array;
}

/** Tokens published in one macrotask when bursting, so sockets get to write in between. */
const BURST_CHUNK = 50;

export function tokenIndex(offset: number): number {
  return offset / TOKEN_TEXT.length;
}

export function createScriptedRunner(planFor: (sessionId: string) => TurnPlan): TurnRunner {
  return {
    startTurn(input: TurnInput): TurnHandle {
      let cancelled = false;
      const done = new Promise<TurnResult>((resolve) => {
        setImmediate(() => void play(input, planFor(input.sessionId), () => cancelled).then(resolve));
      });
      return {
        done,
        cancel: () => {
          cancelled = true;
        },
        steer: () => ({ ok: false, message: "The scripted runner cannot be steered." }),
        kill: () => ({ ok: false, message: "The scripted runner cannot be killed." }),
      };
    },
  };
}

async function play(input: TurnInput, plan: TurnPlan, cancelled: () => boolean): Promise<TurnResult> {
  const { turnId, publish } = input;
  const at = () => new Date().toISOString();
  const runId = `${turnId}-run`;
  const ref = { turnId, runId, parentRunId: null, depth: 1 };
  publish({ type: "turn:started", turnId, prompt: input.prompt, createdAt: at() });
  publish({
    type: "turn:data",
    turnId,
    runId: null,
    data: { kind: "tool_call", step: 0, callId: "call-1", name: "subagent", parameters: '{"task":"bench"}' },
  });
  publish({
    type: "subagent_started",
    ...ref,
    callId: "call-1",
    name: "researcher",
    task: "bench",
    prompt: "Task: bench",
    startedAt: at(),
  });

  const token = (i: number): AgentEvent => ({
    type: "subagent_data",
    ...ref,
    data: { kind: "token", step: 0, offset: i * TOKEN_TEXT.length, text: TOKEN_TEXT },
  });
  let sent = 0;
  const emit = (upTo: number) => {
    for (; sent < upTo; sent++) {
      plan.sentAt[sent] = performance.now();
      publish(token(sent));
    }
  };
  const start = performance.now();
  while (sent < plan.events && !cancelled()) {
    if (plan.ratePerSecond === undefined) {
      emit(Math.min(plan.events, sent + BURST_CHUNK));
      await new Promise((r) => setImmediate(r));
    } else {
      const due = Math.min(plan.events, Math.floor(((performance.now() - start) / 1000) * plan.ratePerSecond) + 1);
      emit(due);
      // Sleep until the next token is due, as a model's stream would: polling every
      // millisecond from 50 sessions would itself load the event loop being measured.
      const nextAt = start + (sent / plan.ratePerSecond) * 1000;
      await new Promise((r) => setTimeout(r, Math.max(1, nextAt - performance.now())));
    }
  }
  return finish(input, ref, sent, cancelled());
}

function finish(
  input: TurnInput,
  ref: { turnId: string; runId: string; parentRunId: null; depth: number },
  tokens: number,
  cancelled: boolean,
): TurnResult {
  const { turnId, runId } = ref;
  const { publish } = input;
  const response = TOKEN_TEXT.repeat(tokens);
  const stats: TurnStats = { ...emptyStats(), steps: 1 };
  const endedAt = new Date().toISOString();
  publish({ type: "subagent_completed", ...ref, response, stats, endReason: "completed", endedAt });
  const condensed = `[Subagent Result: researcher]\nStatus: success\n${response.slice(0, 200)}`;
  publish({
    type: "agent:complete",
    turnId,
    callId: "call-1",
    runId,
    parentRunId: null,
    response: condensed,
    responseSize: condensed.length,
  });
  publish({
    type: "turn:data",
    turnId,
    runId: null,
    data: { kind: "tool_result", callId: "call-1", response: condensed, responseSize: condensed.length, status: "success" },
  });
  const status = cancelled ? "cancelled" : "completed";
  publish({ type: "turn:ended", turnId, status, stats, endedAt });
  // The holder's fold (the server's session), as the real runtime reads it.
  const turn = input.turn?.() ?? newTurn({ sessionId: input.sessionId, turnId, prompt: input.prompt, createdAt: endedAt });
  return { status, stats, turn };
}
