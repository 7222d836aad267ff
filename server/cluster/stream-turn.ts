import type { ChatTurn, SessionEvent } from "@/lib/contracts";
import { applyEvent, turnFromStart } from "@/lib/turn/reduce";
import { parseEntry, streamKey } from "./event-stream";
import type { RedisClient } from "./redis";
import { sequenceStep } from "@/lib/turn/sequence";

/**
 * One turn as its chat's event stream holds it: every event the owner relayed, folded
 * with the one reducer from the turn's `turn:started`. After its owner died this is more
 * than MongoDB holds (the dead writer's last flush was up to a flush period behind, and
 * the text after it was only relayed), and exactly what viewers elsewhere were shown.
 * Null when the stream no longer starts at the turn (trimmed, expired, Redis restarted).
 */
export interface StreamTurn {
  turn: ChatTurn;
  /** The number of the last event relayed in the chat: ending events must come after it. */
  seq: number;
}

export function foldTurnFromEvents(events: readonly SessionEvent[], sessionId: string, turnId: string): StreamTurn | null {
  let turn: ChatTurn | null = null;
  let lastSeq = -Infinity;
  let chatSeq = 0;
  for (const event of events) {
    chatSeq = Math.max(chatSeq, event.seq);
    if (event.turnId !== turnId || sequenceStep(lastSeq, event.seq) === "duplicate") continue;
    lastSeq = event.seq;
    if (event.type === "turn:started") turn = turnFromStart(event, sessionId);
    else if (turn) turn = applyEvent(turn, event);
  }
  return turn ? { turn, seq: chatSeq } : null;
}

export async function turnFromStream(client: RedisClient, sessionId: string, turnId: string): Promise<StreamTurn | null> {
  const entries = await client.xRange(streamKey(sessionId), "-", "+");
  const events: SessionEvent[] = [];
  for (const { message } of entries ?? []) {
    const entry = parseEntry(message as Record<string, unknown>);
    if (entry && entry.event.sessionId === sessionId) events.push(entry.event);
  }
  return foldTurnFromEvents(events, sessionId, turnId);
}
