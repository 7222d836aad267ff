import type { TurnInput, TurnResult } from "@/lib/agent/runtime";
import type { AgentEvent } from "@/lib/contracts";
import { applyEvent, newTurn, turnFromStart } from "@/lib/turn/reduce";
import type { TurnHandle, TurnRunner } from "@/server/sessions/turn-runner";

/**
 * A stand-in for the agent runtime (named so: it runs no model) that publishes a recorded
 * turn under the server's turn id, with run ids made unique across chats as the runtime's
 * are (a run's document is keyed by its id), pausing before the events the test names.
 */
export function replayRunner(
  events: readonly AgentEvent[],
  pause: { at: ReadonlySet<number>; wait: () => Promise<void> } = { at: new Set(), wait: async () => undefined },
): TurnRunner {
  return {
    startTurn(input: TurnInput): TurnHandle {
      const done = (async (): Promise<TurnResult> => {
        await Promise.resolve();
        let turn = newTurn({ sessionId: input.sessionId, turnId: input.turnId, prompt: input.prompt, createdAt: "" });
        for (let i = 0; i < events.length; i++) {
          if (pause.at.has(i)) await pause.wait();
          const ids = JSON.stringify(events[i]).replaceAll('"run-', `"${input.turnId}-run-`);
          const event: AgentEvent = { ...(JSON.parse(ids) as AgentEvent), turnId: input.turnId };
          turn = event.type === "turn:started" ? turnFromStart(event, input.sessionId) : applyEvent(turn, event);
          input.publish(event);
        }
        return { status: "completed", stats: turn.stats, turn };
      })();
      return {
        done,
        cancel: () => undefined,
        steer: () => ({ ok: false, message: "replay" }),
        kill: () => ({ ok: false, message: "replay" }),
      };
    },
  };
}
