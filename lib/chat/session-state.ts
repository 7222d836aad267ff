import type { ChatTurn, JoinResult, SessionEvent } from "@/lib/contracts";
import { applyEvent, turnFromStart } from "@/lib/turn/reduce";

/**
 * The browser's pure state for one open session: `(state, action) → state`. A snapshot
 * replaces the turns; relayed events apply in sequence order through the one turn
 * reducer the server folds with, so `turns` is exactly the server's turns (a reload
 * shows what a live viewer saw). Events at or below the known seq are duplicates
 * (ignored); a gap sets `needsResync`, and nothing more is applied until the next snapshot.
 *
 * Prompts typed here but not yet started by the server are not turns: they wait in
 * `pending` until their `turn:started` arrives (matched by the acknowledged turn id).
 */

export interface PendingPrompt {
  clientId: string;
  prompt: string;
  createdAt: string;
  /** The server's turn id, once `turn:send` was acknowledged. */
  turnId?: string;
  /** Why sending failed; the prompt stays visible with it. */
  error?: string;
}

export interface SessionState {
  sessionId: string;
  title?: string;
  /** Oldest first: the same turns the server holds. */
  turns: ChatTurn[];
  /** Oldest first, shown after the turns. */
  pending: PendingPrompt[];
  /** Last applied event's sequence number. */
  seq: number;
  /** A gap or an inconsistency was seen: join again for a snapshot. */
  needsResync: boolean;
  /** Missed events are being replayed after a join (until `replay:complete`). */
  replaying: boolean;
}

export type SessionAction =
  | { type: "joined"; result: JoinResult }
  | { type: "event"; event: SessionEvent }
  | { type: "replay:complete"; sessionId: string; seq: number }
  | { type: "send"; clientId: string; prompt: string; createdAt: string }
  | { type: "send:acked"; clientId: string; turnId: string }
  | { type: "send:failed"; clientId: string; error: string };

export function initialSessionState(sessionId: string): SessionState {
  return { sessionId, turns: [], pending: [], seq: 0, needsResync: false, replaying: false };
}

/** True while a prompt is on its way or a turn of this session runs (the composer waits). */
export function isBusy(state: SessionState): boolean {
  return state.pending.some((p) => !p.error) || state.turns.some((t) => t.status === "running");
}

export function sessionReducer(state: SessionState, action: SessionAction): SessionState {
  switch (action.type) {
    case "joined":
      return applyJoin(state, action.result);
    case "event":
      return applySessionEvent(state, action.event);
    case "replay:complete": {
      if (action.sessionId !== state.sessionId) return state;
      return { ...state, replaying: false, needsResync: state.needsResync || action.seq > state.seq };
    }
    case "send": {
      const prompt: PendingPrompt = { clientId: action.clientId, prompt: action.prompt, createdAt: action.createdAt };
      return { ...state, pending: [...state.pending, prompt] };
    }
    case "send:acked": {
      // The turn may have started (and arrived) before the acknowledgement did.
      if (state.turns.some((t) => t.turnId === action.turnId)) return withoutPending(state, action.clientId);
      return updatePending(state, action.clientId, (p) => ({ ...p, turnId: action.turnId }));
    }
    case "send:failed":
      return updatePending(state, action.clientId, (p) => ({ ...p, error: action.error }));
  }
}

function applyJoin(state: SessionState, result: JoinResult): SessionState {
  if (result.sessionId !== state.sessionId) return state;
  // The server may send the missed events (and replay:complete) before this answer.
  if (result.mode === "replay") return { ...state, replaying: state.seq < result.seq };
  const known = new Set(result.turns.map((t) => t.turnId));
  return {
    sessionId: state.sessionId,
    title: result.title,
    turns: result.turns,
    // Prompts the snapshot does not hold yet (or that failed to send) stay visible.
    pending: state.pending.filter((p) => p.turnId === undefined || !known.has(p.turnId)),
    seq: result.seq,
    needsResync: false,
    replaying: false,
  };
}

function applySessionEvent(state: SessionState, event: SessionEvent): SessionState {
  if (event.sessionId !== state.sessionId || event.seq <= state.seq || state.needsResync) return state;
  if (event.seq > state.seq + 1) return { ...state, needsResync: true };
  const seq = event.seq;
  if (event.type === "turn:started") return startTurn({ ...state, seq }, event);
  const index = lastIndexOf(state.turns, event.turnId);
  const turn = state.turns[index];
  if (!turn) return { ...state, seq, needsResync: true };
  const next = applyEvent(turn, event);
  return { ...state, seq, turns: next === turn ? state.turns : replaceAt(state.turns, index, next) };
}

/** A started turn replaces its pending prompt (matched by acknowledged id, else by text). */
function startTurn(state: SessionState, event: Extract<SessionEvent, { type: "turn:started" }>): SessionState {
  if (lastIndexOf(state.turns, event.turnId) >= 0) return state;
  const turns = [...state.turns, turnFromStart(event, state.sessionId)];
  const byId = state.pending.findIndex((p) => p.turnId === event.turnId);
  const match = byId >= 0 ? byId : state.pending.findIndex((p) => p.turnId === undefined && !p.error && p.prompt === event.prompt);
  const pending = match >= 0 ? state.pending.filter((_, i) => i !== match) : state.pending;
  return { ...state, turns, pending };
}

function updatePending(state: SessionState, clientId: string, fn: (p: PendingPrompt) => PendingPrompt): SessionState {
  const index = state.pending.findIndex((p) => p.clientId === clientId);
  if (index < 0) return state;
  return { ...state, pending: replaceAt(state.pending, index, fn(state.pending[index]!)) };
}

function withoutPending(state: SessionState, clientId: string): SessionState {
  return { ...state, pending: state.pending.filter((p) => p.clientId !== clientId) };
}

function lastIndexOf(turns: readonly ChatTurn[], turnId: string): number {
  for (let i = turns.length - 1; i >= 0; i--) if (turns[i]!.turnId === turnId) return i;
  return -1;
}

function replaceAt<T>(items: readonly T[], index: number, item: T): T[] {
  const copy = items.slice();
  copy[index] = item;
  return copy;
}
