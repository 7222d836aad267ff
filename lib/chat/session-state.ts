import type { ChatTurn, JoinResult, SessionEvent, TurnStats, TurnStatus } from "@/lib/contracts";
import { emptyStats } from "@/lib/contracts";
import { docFromTurn } from "@/lib/markup/from-turn";
import { applyEvent } from "@/lib/markup/transforms";
import { emptyDoc, type MessageDoc } from "@/lib/markup/types";

/**
 * The browser's pure state for one open session: `(state, action) → state`. A snapshot
 * replaces everything; relayed events apply in sequence order through the same markup
 * transforms the server's stored turn converges with, so a reload shows what a live
 * viewer saw. Events at or below the known seq are duplicates (ignored); a gap sets
 * `needsResync`, and nothing more is applied until the next snapshot.
 */

/** `sending`: typed locally, not yet started by the server. */
export type TurnViewStatus = "sending" | TurnStatus;

export interface TurnView {
  /** The server's turn id; `local:<clientId>` while an optimistic prompt is unacknowledged. */
  turnId: string;
  /** Set on turns created by a local send, to match the acknowledgement. */
  clientId?: string;
  prompt: string;
  doc: MessageDoc;
  status: TurnViewStatus;
  error?: string;
  stats: TurnStats;
  createdAt: string;
}

export interface SessionState {
  sessionId: string;
  title?: string;
  /** Oldest first. */
  turns: TurnView[];
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

const LOCAL_PREFIX = "local:";

export function initialSessionState(sessionId: string): SessionState {
  return { sessionId, turns: [], seq: 0, needsResync: false, replaying: false };
}

/** The turn view a stored turn renders as (snapshot path). */
export function turnViewFromTurn(turn: ChatTurn): TurnView {
  const view: TurnView = {
    turnId: turn.turnId,
    prompt: turn.prompt,
    doc: docFromTurn(turn),
    status: turn.status,
    stats: turn.stats,
    createdAt: turn.createdAt,
  };
  if (turn.error !== undefined) view.error = turn.error;
  return view;
}

/** True while a turn of this session is sending or running (the composer waits). */
export function isBusy(state: SessionState): boolean {
  return state.turns.some((t) => t.status === "sending" || t.status === "running");
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
      const turn: TurnView = {
        turnId: LOCAL_PREFIX + action.clientId,
        clientId: action.clientId,
        prompt: action.prompt,
        doc: emptyDoc(LOCAL_PREFIX + action.clientId),
        status: "sending",
        stats: emptyStats(),
        createdAt: action.createdAt,
      };
      return { ...state, turns: [...state.turns, turn] };
    }
    case "send:acked": {
      const pending = state.turns.findIndex((t) => t.clientId === action.clientId && t.status === "sending");
      if (pending < 0) return state;
      if (state.turns.some((t) => t.turnId === action.turnId && t.status !== "sending")) {
        return { ...state, turns: state.turns.filter((_, i) => i !== pending) };
      }
      const acked = { ...state.turns[pending]!, turnId: action.turnId, doc: emptyDoc(action.turnId) };
      return { ...state, turns: replaceAt(state.turns, pending, acked) };
    }
    case "send:failed": {
      const pending = state.turns.findIndex((t) => t.clientId === action.clientId && t.status === "sending");
      if (pending < 0) return state;
      const failed: TurnView = { ...state.turns[pending]!, status: "failed", error: action.error };
      return { ...state, turns: replaceAt(state.turns, pending, failed) };
    }
  }
}

function applyJoin(state: SessionState, result: JoinResult): SessionState {
  if (result.sessionId !== state.sessionId) return state;
  // The server may send the missed events (and replay:complete) before this answer.
  if (result.mode === "replay") return { ...state, replaying: state.seq < result.seq };
  const turns = result.turns.map(turnViewFromTurn);
  const known = new Set(turns.map((t) => t.turnId));
  // Local prompts the snapshot cannot know yet (or that failed to send) stay visible.
  const pending = state.turns.filter(
    (t) => t.turnId.startsWith(LOCAL_PREFIX) || (t.status === "sending" && !known.has(t.turnId)),
  );
  return {
    sessionId: state.sessionId,
    title: result.title,
    turns: [...turns, ...pending],
    seq: result.seq,
    needsResync: false,
    replaying: false,
  };
}

function applySessionEvent(state: SessionState, event: SessionEvent): SessionState {
  if (event.sessionId !== state.sessionId || event.seq <= state.seq || state.needsResync) return state;
  if (event.seq > state.seq + 1) return { ...state, needsResync: true };
  const seq = event.seq;
  if (event.type === "turn:started") return { ...state, seq, turns: startTurn(state.turns, event) };
  const index = lastIndexOf(state.turns, event.turnId);
  const turn = state.turns[index];
  if (!turn || turn.status === "sending") return { ...state, seq, needsResync: true };
  let next: TurnView = turn;
  const doc = applyEvent(turn.doc, event);
  if (doc !== turn.doc) next = { ...next, doc };
  if (event.type === "turn:usage" && turn.status === "running") next = { ...next, stats: event.stats };
  if (event.type === "turn:ended" && turn.status === "running") {
    next = { ...next, status: event.status, stats: event.stats };
    if (event.error !== undefined) next.error = event.error;
  }
  return { ...state, seq, turns: next === turn ? state.turns : replaceAt(state.turns, index, next) };
}

/** A started turn replaces its optimistic twin (matched by acked id, else by prompt). */
function startTurn(turns: TurnView[], event: Extract<SessionEvent, { type: "turn:started" }>): TurnView[] {
  const view: TurnView = {
    turnId: event.turnId,
    prompt: event.prompt,
    doc: emptyDoc(event.turnId),
    status: "running",
    stats: emptyStats(),
    createdAt: event.createdAt,
  };
  const existing = lastIndexOf(turns, event.turnId);
  if (existing >= 0) return turns[existing]!.status === "sending" ? replaceAt(turns, existing, view) : turns;
  const twin = turns.findIndex(
    (t) => t.status === "sending" && t.turnId.startsWith(LOCAL_PREFIX) && t.prompt === event.prompt,
  );
  if (twin >= 0) return replaceAt(turns, twin, view);
  const firstPending = turns.findIndex((t) => t.status === "sending");
  if (firstPending < 0) return [...turns, view];
  return [...turns.slice(0, firstPending), view, ...turns.slice(firstPending)];
}

function lastIndexOf(turns: readonly TurnView[], turnId: string): number {
  for (let i = turns.length - 1; i >= 0; i--) if (turns[i]!.turnId === turnId) return i;
  return -1;
}

function replaceAt<T>(items: readonly T[], index: number, item: T): T[] {
  const copy = items.slice();
  copy[index] = item;
  return copy;
}
