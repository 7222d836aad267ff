import { initialSessionState, sessionReducer, type SessionState } from "@/lib/chat/session-state";
import type { ChatTurn, JoinResult } from "@/lib/contracts";
import { recordEvents, request, type Harness, type TestClient } from "./app-harness";

/** A browser's view of one chat: the same reducer the UI uses, fed from a real socket. */
export function browserView(socket: TestClient, sessionId: string) {
  let state: SessionState = initialSessionState(sessionId);
  const events = recordEvents(socket);
  let applied = 0;
  return {
    async join(lastSeq?: number) {
      const ack = await request(socket, "session:join", lastSeq === undefined ? { sessionId } : { sessionId, lastSeq });
      if (!ack.ok) throw new Error(ack.message);
      applied = events.length;
      state = sessionReducer(state, { type: "joined", result: ack.data as JoinResult });
    },
    sync(): SessionState {
      for (; applied < events.length; applied++) state = sessionReducer(state, { type: "event", event: events[applied]! });
      return state;
    },
    events,
  };
}

/** The turns rebuilt from MongoDB alone (not the server's in-memory fold), once everything is written. */
export async function storedTurns(harness: Harness, sessionId: string): Promise<ChatTurn[]> {
  await (await harness.app.registry.peek(sessionId))?.drain();
  return harness.store.loadHistory(sessionId);
}
