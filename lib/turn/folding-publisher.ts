import type { ChatTurn, Publish } from "@/lib/contracts";
import { applyEvent, newTurn, turnFromStart } from "./reduce";

/**
 * A publisher that folds every event it passes on: for a holder of a turn that has no fold
 * of its own (a test, a benchmark, the runtime run alone). The server's session folds the
 * events it relays and needs none of this.
 */
export function foldingPublisher(sessionId: string, publish: Publish): { publish: Publish; turn(): ChatTurn } {
  // Replaced by the turn `turn:started` opens, which is always published first.
  let turn = newTurn({ sessionId, turnId: "", prompt: "", createdAt: "" });
  return {
    publish: (event) => {
      turn = event.type === "turn:started" ? turnFromStart(event, sessionId) : applyEvent(turn, event);
      publish(event);
    },
    turn: () => turn,
  };
}
