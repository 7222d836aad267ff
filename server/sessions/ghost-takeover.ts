import type { ChatTurn } from "@/lib/contracts";
import { applyEvent } from "@/lib/turn/reduce";
import { ghostEndEvents } from "@/server/cluster/ghost-events";
import type { ChatStore } from "@/server/data/store";
import type { LiveTurns } from "./live-turns";
import type { NumberedRelay } from "./numbered-relay";
import type { SequenceNumbers } from "./sequence-numbers";

/** The parts of a chat's session that ending a dead process's turn works on. */
export interface TakeoverParts {
  sessionId: string;
  store: Pick<ChatStore, "rewriteTurn" | "ghostSweep">;
  live: LiveTurns;
  relay: NumberedRelay;
  numbers: SequenceNumbers;
  /** The turn as the session's history has it, for a turn this process holds nothing of. */
  historyTurn(turnId: string): Promise<ChatTurn | undefined>;
}

/**
 * Ends the turn a dead process left running (its lease expired and this process took it
 * over): viewers get the end events with the next numbers, MongoDB gets the same through
 * the store's sweep of that turn. `recovered`: the turn as the chat's event stream holds
 * it. Returns the last number used.
 */
export async function endGhostTurn(
  parts: TakeoverParts,
  turnId: string,
  leaseSeq: number,
  now: Date,
  recovered?: { turn: ChatTurn; seq: number },
): Promise<number> {
  const { sessionId, store, live, relay } = parts;
  // The stream's fold is the whole of what the dead owner relayed (this process's mirror
  // may still be reading its last entries); MongoDB's copy lags by its last flush.
  if (recovered && recovered.turn.status !== "running") {
    // The owner finished the turn (viewers saw its end) and died before its writer
    // flushed it or its lease was released: store it as it ended; nothing to tell anyone.
    await store.rewriteTurn(sessionId, recovered.turn);
    await store.ghostSweep(now, { sessionId, turnId });
    return relay.seq;
  }
  const whole = recovered?.turn.status === "running" ? recovered.turn : live.get(turnId);
  const turn = whole ?? (await parts.historyTurn(turnId));
  // Stored first: a viewer that reloads on seeing the end finds it in MongoDB. The turn is
  // written whole, already ended as viewers will fold it.
  if (whole?.status === "running") {
    let ended = whole;
    for (const event of ghostEndEvents(whole, now.toISOString())) ended = applyEvent(ended, event);
    await store.rewriteTurn(sessionId, ended);
  }
  await store.ghostSweep(now, { sessionId, turnId });
  if (turn?.status !== "running") return relay.seq;
  // Numbers start past every reservation: the dead owner may have relayed events to its
  // own viewers that never reached the stream, under numbers a continuation would hand
  // out again with other content. Viewers elsewhere see the jump and rejoin (a snapshot).
  relay.jumpTo(Math.max(relay.seq, leaseSeq, recovered?.seq ?? 0, await parts.numbers.freshStart()));
  live.hold(turn);
  for (const event of ghostEndEvents(turn, now.toISOString())) {
    live.add(event);
    relay.emit(event);
  }
  return relay.seq;
}
