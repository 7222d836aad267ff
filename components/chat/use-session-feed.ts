"use client";

import { useCallback, useEffect, useLayoutEffect, useMemo, useReducer, useRef, useState, type Dispatch } from "react";
import type { Ack, ErrorCode, JoinResult, SessionEvent, TurnPage } from "@/lib/contracts";
import { initialSessionState, sessionReducer, type JoinSnapshot, type SessionAction, type SessionState } from "@/lib/chat/session-state";
import { frameBatch } from "./frame-batch";

export interface SessionProblem {
  code: ErrorCode;
  message: string;
}

/** The turns before the loaded ones: whether there are any, and the state of asking for them. */
export interface OlderTurns {
  hasMore: boolean;
  loading: boolean;
  /** Why the last page did not load; `load` tries again. */
  error: string | null;
  load: () => void;
}

/** What the feed listens to on its socket. */
export interface FeedListeners {
  event: (event: SessionEvent) => void;
  replayComplete: (info: { sessionId: string; seq: number }) => void;
  connect: () => void;
  /** Applies the events queued for the next frame now (before anything ordered after them). */
  flush: () => void;
}

/**
 * The connection one view reads a chat over: the owner's shared socket (`session:*`), or
 * a share link's own socket on the `/share` namespace (`share:*`, read-only).
 */
export interface FeedChannel {
  /** Starts listening (a share link's socket connects here); returns how to stop. */
  open: (on: FeedListeners) => () => void;
  connected: () => boolean;
  /** Without `lastSeq` the server answers with a snapshot. */
  join: (lastSeq?: number) => Promise<Ack<JoinResult>>;
  older: (before: NonNullable<SessionState["older"]>) => Promise<Ack<TurnPage>>;
  joined?: () => void;
  /** A join was refused; `loaded`: the chat was already showing. */
  joinFailed?: (problem: SessionProblem, loaded: boolean) => void;
}

export interface SessionFeed {
  state: SessionState;
  dispatch: Dispatch<SessionAction>;
  older: OlderTurns;
  /** False until the first join answered (snapshot or replay). */
  loaded: boolean;
}

/** The session reducer; a share viewer learns the chat's id from its first join (state id ""), and adopts it then. */
function feedReducer(state: SessionState, action: SessionAction): SessionState {
  if (action.type === "joined" && state.sessionId === "") return sessionReducer(initialSessionState(action.result.sessionId), action);
  return sessionReducer(state, action);
}

/**
 * One chat, live, over a channel. Every agent event arrives on the one `agent:event`
 * channel and feeds the pure reducer (lib/chat/session-state.ts). A fresh load asks for a
 * snapshot; a reconnect rejoins with `lastSeq` so the server can replay only what was
 * missed; a gap the reducer detects (`needsResync`) asks for a snapshot again.
 *
 * `initial`: the join the page's HTML was rendered from. The feed starts loaded with it,
 * and the first join is already a rejoin: `lastSeq` is the snapshot's, so the server
 * sends only what happened since (or a snapshot, if that is no longer in its window).
 * `channel` must keep its identity while it is the same connection (memoise it).
 */
export function useSessionFeed(channel: FeedChannel, sessionId: string, initial?: JoinSnapshot | null): SessionFeed {
  const [state, dispatch] = useReducer(feedReducer, initial ?? null, (snapshot) => initialSessionState(sessionId, snapshot));
  const [loaded, setLoaded] = useState(Boolean(initial));
  const stateRef = useRef(state);
  const loadedRef = useRef(Boolean(initial));
  const joining = useRef(false);
  /** Applies the events queued for the next frame now. */
  const flushEvents = useRef<() => void>(() => undefined);
  const [olderLoading, setOlderLoading] = useState(false);
  const [olderError, setOlderError] = useState<string | null>(null);
  const loadingOlder = useRef(false);
  /** Bumped after every join, so a resync still pending after a replay-mode join retries. */
  const [joins, setJoins] = useState(0);

  // A layout effect: it runs before any passive effect of this commit, the children's
  // included, so one that asks for the next older page reads the cursor of now.
  useLayoutEffect(() => {
    stateRef.current = state;
  }, [state]);

  const join = useCallback(
    async (resume: boolean) => {
      joining.current = true;
      const lastSeq = resume && loadedRef.current ? stateRef.current.seq : undefined;
      const ack = await channel.join(lastSeq);
      joining.current = false;
      setJoins((n) => n + 1);
      if (ack.ok) {
        flushEvents.current();
        dispatch({ type: "joined", result: ack.data });
        loadedRef.current = true;
        setLoaded(true);
        channel.joined?.();
      } else {
        channel.joinFailed?.({ code: ack.code, message: ack.message }, loadedRef.current);
      }
    },
    [channel],
  );

  useEffect(() => {
    // Streamed events are applied once per frame (see frameBatch); anything ordered after
    // them (a replay's end, a join's answer) flushes them first.
    const events = frameBatch<SessionEvent>((batch) => {
      for (const event of batch) dispatch({ type: "event", event });
    });
    flushEvents.current = events.flush;
    const close = channel.open({
      event: (event) => events.push(event),
      replayComplete: (info) => {
        events.flush();
        dispatch({ type: "replay:complete", sessionId: info.sessionId, seq: info.seq });
      },
      connect: () => void join(true),
      flush: events.flush,
    });
    // Resumes from the page's snapshot when there is one; a snapshot otherwise.
    if (channel.connected()) void join(true);

    return () => {
      events.dispose();
      flushEvents.current = () => undefined;
      close();
    };
  }, [channel, join]);

  useEffect(() => {
    // Disconnected, the reconnect's join comes first; after it, `joins` brings us back here.
    if (state.needsResync && !joining.current && channel.connected()) void join(false);
  }, [state.needsResync, joins, channel, join]);

  // One page at a time; the reducer drops a page that no longer fits (a snapshot came between).
  const loadOlder = useCallback(async () => {
    const before = stateRef.current.older;
    if (before === null || loadingOlder.current) return;
    loadingOlder.current = true;
    setOlderLoading(true);
    setOlderError(null);
    const ack = await channel.older(before);
    loadingOlder.current = false;
    setOlderLoading(false);
    if (ack.ok) dispatch({ type: "older", page: ack.data, before });
    else setOlderError(ack.message);
  }, [channel]);

  const older = useMemo<OlderTurns>(
    () => ({ hasMore: state.older !== null, loading: olderLoading, error: olderError, load: () => void loadOlder() }),
    [state.older, olderLoading, olderError, loadOlder],
  );

  return { state, dispatch, older, loaded };
}
