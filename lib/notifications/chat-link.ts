/**
 * Where a notification opens: the chat, at the panel that waits. A subagent's call is
 * reached through its run's panel (`#run-…`, which the message list already seeks); the
 * master's call and a turn's end through the turn (`#turn-…`).
 */
const TURN_PREFIX = "#turn-";
const RUN_PREFIX = "#run-";

export function chatLink(sessionId: string, turnId: string, runId: string | null): string {
  const hash = runId ? `${RUN_PREFIX}${encodeURIComponent(runId)}` : `${TURN_PREFIX}${encodeURIComponent(turnId)}`;
  return `/c/${encodeURIComponent(sessionId)}${hash}`;
}

/** The turn a URL's hash points at (`#turn-…`), or null. */
export function turnOfHash(hash: string): string | null {
  if (!hash.startsWith(TURN_PREFIX) || hash.length === TURN_PREFIX.length) return null;
  try {
    return decodeURIComponent(hash.slice(TURN_PREFIX.length));
  } catch {
    return null;
  }
}
