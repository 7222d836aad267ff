import type { ChatTurn } from "@/lib/contracts";

/**
 * Stored turns with the ones this process still holds in memory laid over them: a turn
 * held here is newer than MongoDB's copy (its last writes may still be queued), so it
 * replaces it. `withNewer`: the stored turns are the newest ones, so the turns held here
 * that MongoDB does not have yet (the running one, just started) are added after them; an
 * older page (one read before a turn) gets none, they are newer than any of its turns.
 */
export function overlayLiveTurns(stored: readonly ChatTurn[], live: ReadonlyMap<string, ChatTurn>, withNewer: boolean): ChatTurn[] {
  const seen = new Set<string>();
  const turns = stored.map((turn) => {
    seen.add(turn.turnId);
    return live.get(turn.turnId) ?? turn;
  });
  if (withNewer) for (const [turnId, turn] of live) if (!seen.has(turnId)) turns.push(turn);
  return turns;
}
