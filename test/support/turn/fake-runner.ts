import type { TurnInput, TurnResult } from "@/lib/agent/runtime";
import { emptyStats, type AgentEvent, type ChatTurn, type TurnStats } from "@/lib/contracts";
import { applyEvent, turnFromStart } from "@/lib/turn/reduce";
import type { TurnRunner } from "@/server/sessions/turn-runner";

/** What a fake turn's script gets: a publisher that also folds, and the fold so far. */
export interface FakeTurn {
  turnId: string;
  at: string;
  publish(event: AgentEvent): void;
  turn(): ChatTurn;
  /** Opens one `explore` subagent (run `<turnId>-r1`) under the master's call `c1`; returns its run fields. */
  startSubagent(task: string): { turnId: string; runId: string; parentRunId: null; depth: number };
  /** The stats the fake turn and its subagent end with. */
  stats: TurnStats;
}

/**
 * A runner that stands in for the runtime where no model is needed (storage and relay
 * tests): `script` publishes the turn's events between `turn:started` and `turn:ended`,
 * and the runner keeps the one reducer's fold of them, as the real runtime does.
 */
export function fakeRunner(script: (turn: FakeTurn) => Promise<void>): TurnRunner {
  return {
    startTurn(input: TurnInput) {
      const { turnId } = input;
      const at = new Date().toISOString();
      const stats = { ...emptyStats(), steps: 1 };
      let turn: ChatTurn | undefined;
      const publish = (event: AgentEvent) => {
        turn = event.type === "turn:started" ? turnFromStart(event, input.sessionId) : applyEvent(turn!, event);
        input.publish(event);
      };
      const fake: FakeTurn = {
        turnId,
        at,
        publish,
        turn: () => turn!,
        stats,
        startSubagent(task) {
          const ref = { turnId, runId: `${turnId}-r1`, parentRunId: null, depth: 1 };
          publish({
            type: "turn:data",
            turnId,
            runId: null,
            data: { kind: "tool_call", step: 0, callId: "c1", name: "subagent", parameters: JSON.stringify({ task }) },
          });
          publish({ type: "subagent_started", ...ref, callId: "c1", name: "explore", task, prompt: `Task: ${task}`, startedAt: at });
          return ref;
        },
      };
      const done = (async (): Promise<TurnResult> => {
        publish({ type: "turn:started", turnId, prompt: input.prompt, createdAt: at });
        await script(fake);
        publish({ type: "turn:ended", turnId, status: "completed", stats, endedAt: at });
        return { status: "completed", stats, turn: turn! };
      })();
      return { done, cancel: () => undefined, steer: () => ({ ok: false, message: "n/a" }), kill: () => ({ ok: false, message: "n/a" }) };
    },
  };
}
