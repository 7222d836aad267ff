import type { ChatTurn, JoinResult, SessionEvent, TurnPage } from "@/lib/contracts";
import { applyEvent, turnFromStart } from "@/lib/turn/reduce";
import { sequenceStep } from "@/lib/turn/sequence";

/**
 * The browser's pure state for one open session: `(state, action) → state`. A snapshot
 * replaces the turns; relayed events apply in sequence order through the one turn
 * reducer the server folds with, so `turns` is exactly the server's turns (a reload
 * shows what a live viewer saw). Events at or below the known seq are duplicates
 * (ignored); a gap sets `needsResync`, and nothing more is applied until the next snapshot.
 *
 * A join holds the newest turns only; older pages are prepended as the reader asks for
 * them (`older` is the cursor while some are left). An event for a turn not loaded yet is
 * counted and skipped: that page, read later, already holds it.
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
  /** Oldest first: the server's newest turns, as many as were loaded. */
  turns: ChatTurn[];
  /** Cursor for the page before `turns` (`session:older`); null once the first turn is loaded. */
  older: string | null;
  /** Oldest first, shown after the turns. */
  pending: PendingPrompt[];
  /** Last applied event's sequence number. */
  seq: number;
  /** A gap or an inconsistency was seen: join again for a snapshot. */
  needsResync: boolean;
  /** Missed events are being replayed after a join (until `replay:complete`). */
  replaying: boolean;
  /** For each turn shown that has alternatives (edits, regenerations): all of them, oldest first. */
  siblings: Record<string, string[]>;
}

export type SessionAction =
  | { type: "joined"; result: JoinResult }
  /** Another branch is shown: its snapshot replaces the turns whole. */
  | { type: "branched"; result: JoinResult }
  | { type: "older"; page: TurnPage; before: string }
  | { type: "event"; event: SessionEvent }
  | { type: "replay:complete"; sessionId: string; seq: number }
  | { type: "send"; clientId: string; prompt: string; createdAt: string }
  | { type: "send:acked"; clientId: string; turnId: string }
  | { type: "send:failed"; clientId: string; error: string }
  /** The prompt was refused because a turn runs, and the person is asked to queue it: it is not a failed message. */
  | { type: "send:withdrawn"; clientId: string };

/** A join's answer with the turns in it (the chat page's HTML is rendered from one). */
export type JoinSnapshot = Extract<JoinResult, { mode: "snapshot" }>;

/**
 * What the chat page was rendered with: the join's first page of turns, or that the chat
 * is not there for this person (missing and someone else's look the same).
 */
export type InitialChat = { snapshot: JoinSnapshot } | { notFound: true };

/**
 * Empty, or the state of a join that answered `snapshot`: the page's HTML and its first
 * render hold the turns at once, and the socket later asks only for what came after
 * `snapshot.seq`.
 */
export function initialSessionState(sessionId: string, snapshot?: JoinSnapshot | null): SessionState {
  const empty: SessionState = {
    sessionId,
    turns: [],
    older: null,
    pending: [],
    seq: 0,
    needsResync: false,
    replaying: false,
    siblings: {},
  };
  return snapshot ? applyJoin(empty, snapshot) : empty;
}

/** True while a prompt is on its way or a turn of this session runs (the composer waits). */
export function isBusy(state: SessionState): boolean {
  return state.pending.some((p) => !p.error) || state.turns.some((t) => t.status === "running");
}

export function sessionReducer(state: SessionState, action: SessionAction): SessionState {
  switch (action.type) {
    case "joined":
      return applyJoin(state, action.result);
    case "branched":
      return applyJoin({ ...state, turns: [] }, action.result);
    case "older":
      return applyOlder(state, action.page, action.before);
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
    case "send:withdrawn":
      return withoutPending(state, action.clientId);
  }
}

function applyJoin(state: SessionState, result: JoinResult): SessionState {
  if (result.sessionId !== state.sessionId) return state;
  // The server may send the missed events (and replay:complete) before this answer.
  if (result.mode === "replay") return { ...state, replaying: state.seq < result.seq };
  const known = new Set(result.turns.map((t) => t.turnId));
  // A snapshot after a gap: the older pages the reader already loaded stay (they are
  // finished turns; only the newest change), joined where the snapshot's page begins.
  const oldest = result.turns[0];
  const joinAt = oldest && result.older !== null ? state.turns.findIndex((t) => t.turnId === oldest.turnId) : -1;
  const kept = joinAt > 0 ? state.turns.slice(0, joinAt) : [];
  return {
    sessionId: state.sessionId,
    title: result.title,
    turns: kept.length > 0 ? [...kept, ...result.turns] : result.turns,
    older: kept.length > 0 ? state.older : result.older,
    // Prompts the snapshot does not hold yet (or that failed to send) stay visible.
    pending: state.pending.filter((p) => p.turnId === undefined || !known.has(p.turnId)),
    seq: result.seq,
    needsResync: false,
    replaying: false,
    siblings: { ...(kept.length > 0 ? state.siblings : {}), ...result.siblings },
  };
}

function applySessionEvent(state: SessionState, event: SessionEvent): SessionState {
  if (event.sessionId !== state.sessionId || state.needsResync) return state;
  const step = sequenceStep(state.seq, event.seq);
  if (step === "duplicate") return state;
  if (step === "gap") return { ...state, needsResync: true };
  const seq = event.seq;
  if (event.type === "turn:started") return startTurn({ ...state, seq }, event);
  const index = lastIndexOf(state.turns, event.turnId);
  const turn = state.turns[index];
  // Not loaded: a turn of an older page (counted; the page holds it when it is read), or
  // with every turn loaded, a turn this state missed.
  if (!turn) return state.older !== null ? { ...state, seq } : { ...state, seq, needsResync: true };
  const next = applyEvent(turn, event);
  return { ...state, seq, turns: next === turn ? state.turns : replaceAt(state.turns, index, next) };
}

/**
 * An older page goes before the turns, if it is the page before them (one answering an
 * earlier cursor, after a snapshot replaced the turns, is stale). A turn held already is
 * kept as held: it has the events applied since the page was read.
 */
function applyOlder(state: SessionState, page: TurnPage, before: string): SessionState {
  if (page.sessionId !== state.sessionId || state.older !== before) return state;
  const held = new Set(state.turns.map((t) => t.turnId));
  const fresh = page.turns.filter((t) => !held.has(t.turnId));
  return {
    ...state,
    turns: fresh.length > 0 ? [...fresh, ...state.turns] : state.turns,
    older: page.older,
    siblings: page.siblings ? { ...page.siblings, ...state.siblings } : state.siblings,
  };
}

/** A started turn replaces its pending prompt (matched by acknowledged id, else by text). */
function startTurn(state: SessionState, event: Extract<SessionEvent, { type: "turn:started" }>): SessionState {
  if (lastIndexOf(state.turns, event.turnId) >= 0) return state;
  const { kept, siblings } = branchAt(state, event);
  const turns = [...kept, turnFromStart(event, state.sessionId)];
  const byId = state.pending.findIndex((p) => p.turnId === event.turnId);
  const match = byId >= 0 ? byId : state.pending.findIndex((p) => p.turnId === undefined && !p.error && p.prompt === event.prompt);
  const pending = match >= 0 ? state.pending.filter((_, i) => i !== match) : state.pending;
  return { ...state, turns, pending, siblings };
}

/**
 * Where a started turn goes: after the turn it names as its parent (the turns shown after
 * that one are a branch left behind, and the first of them is an alternative of the new
 * turn), or, naming none, after the last turn.
 */
function branchAt(
  state: SessionState,
  event: Extract<SessionEvent, { type: "turn:started" }>,
): { kept: ChatTurn[]; siblings: Record<string, string[]> } {
  const parent = event.parentTurnId;
  if (parent === undefined) return { kept: state.turns, siblings: state.siblings };
  // A parent not shown is older than every turn shown (or null, a new first turn): none is kept.
  const at = parent === null ? -1 : lastIndexOf(state.turns, parent);
  const left = state.turns[at + 1];
  if (!left) return { kept: state.turns, siblings: state.siblings };
  const all = [...(state.siblings[left.turnId] ?? [left.turnId]), event.turnId];
  const siblings = { ...state.siblings };
  for (const turnId of all) siblings[turnId] = all;
  return { kept: state.turns.slice(0, at + 1), siblings };
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
