/**
 * "Show this turn": a search result asks for a turn of a chat that may not be open yet,
 * or whose turn is in an older page. The request waits here until that chat's message
 * list takes it (on mount), or reaches a list already showing the chat (an event).
 */
let pending: { sessionId: string; turnId: string } | null = null;
const EVENT = "delegate:seek-turn";

export function requestTurn(sessionId: string, turnId: string): void {
  pending = { sessionId, turnId };
  window.dispatchEvent(new CustomEvent(EVENT));
}

/** The turn asked for in `sessionId`, once: later calls return null. */
export function takeTurnRequest(sessionId: string): string | null {
  if (!pending || pending.sessionId !== sessionId) return null;
  const { turnId } = pending;
  pending = null;
  return turnId;
}

/** Calls `fn` whenever a turn is requested; returns the unsubscribe. */
export function onTurnRequest(fn: () => void): () => void {
  window.addEventListener(EVENT, fn);
  return () => window.removeEventListener(EVENT, fn);
}

/** How long the turn is held in place while the pages around it settle. */
const HOLD_MS = 1_500;

/**
 * Scrolls the turn (its prompt first) into view and marks it briefly; false when it is
 * not rendered. Turns revealed above it and panels laying out can still move it in the
 * next moments, so it is held in place for a while — until the reader scrolls themselves.
 */
export function showTurn(turnId: string): boolean {
  const answer = document.querySelector<HTMLElement>(`[data-turn-id="${CSS.escape(turnId)}"]`);
  const turn = answer?.parentElement;
  if (!turn) return false;
  turn.scrollIntoView({ block: "start" });
  turn.dataset.sought = "true";
  setTimeout(() => delete turn.dataset.sought, 2_000);
  const until = Date.now() + HOLD_MS;
  let released = false;
  const release = () => {
    released = true;
    for (const type of INPUTS) window.removeEventListener(type, release, true);
  };
  for (const type of INPUTS) window.addEventListener(type, release, { capture: true, passive: true });
  const hold = () => {
    if (released || !turn.isConnected || Date.now() > until) return release();
    const top = turn.getBoundingClientRect().top;
    const scroller = turn.closest<HTMLElement>("[data-testid=message-list]");
    const want = scroller ? scroller.getBoundingClientRect().top + 16 : 0;
    if (Math.abs(top - want) > 2) turn.scrollIntoView({ block: "start" });
    requestAnimationFrame(hold);
  };
  requestAnimationFrame(hold);
  return true;
}

const INPUTS = ["wheel", "touchstart", "keydown", "pointerdown"] as const;
