"use client";

import { useCallback, useEffect, useMemo, useReducer, useRef, useState } from "react";
import type { Ack, ErrorCode, RetryStarted, SessionEvent } from "@/lib/contracts";
import { initialSessionState, isBusy, sessionReducer, type JoinSnapshot, type SessionState } from "@/lib/chat/session-state";
import { getSocket, request } from "@/components/realtime/socket";
import { newClientId } from "./client-id";
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

export interface UseSession {
  state: SessionState;
  older: OlderTurns;
  /** False until the first join answered (snapshot or replay). */
  loaded: boolean;
  /** Why joining failed (e.g. not_found); the view replaces the chat with it. */
  joinError: SessionProblem | null;
  busy: boolean;
  runningTurnId: string | null;
  send: (text: string) => Promise<boolean>;
  cancel: () => Promise<Ack<{ turnId: string }> | null>;
  steer: (runId: string, message: string) => Promise<Ack<{ runId: string }>>;
  kill: (runId: string) => Promise<Ack<{ runId: string }>>;
  decide: (callId: string, runId: string | null, decision: "approve" | "deny", reason?: string) => Promise<Ack<{ callId: string }>>;
  retry: (runId: string, task?: string) => Promise<Ack<RetryStarted>>;
}

/**
 * One open session over the shared socket. Every agent event arrives on the one
 * `agent:event` channel and feeds the pure reducer. A fresh load
 * asks for a snapshot; a reconnect rejoins with `lastSeq` so the server can replay only
 * what was missed; a gap the reducer detects (`needsResync`) asks for a snapshot again.
 *
 * `initial`: the join the page's HTML was rendered from. The session starts loaded with
 * it, and the first join is already a rejoin: `lastSeq` is the snapshot's, so the server
 * sends only what happened since (or a snapshot, if that is no longer in its window).
 */
export function useSession(sessionId: string, initial?: JoinSnapshot | null): UseSession {
  const [state, dispatch] = useReducer(sessionReducer, initial ?? null, (snapshot) => initialSessionState(sessionId, snapshot));
  const [loaded, setLoaded] = useState(Boolean(initial));
  const [joinError, setJoinError] = useState<SessionProblem | null>(null);
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

  useEffect(() => {
    stateRef.current = state;
  }, [state]);

  const join = useCallback(
    async (resume: boolean) => {
      joining.current = true;
      const socket = getSocket();
      const lastSeq = resume && loadedRef.current ? stateRef.current.seq : undefined;
      const ack = await request(socket, "session:join", lastSeq === undefined ? { sessionId } : { sessionId, lastSeq });
      joining.current = false;
      setJoins((n) => n + 1);
      if (ack.ok) {
        flushEvents.current();
        dispatch({ type: "joined", result: ack.data });
        loadedRef.current = true;
        setLoaded(true);
        setJoinError(null);
      } else if (ack.code !== "unavailable" || !loadedRef.current) {
        // A timeout while already showing the session is retried by the next reconnect.
        setJoinError({ code: ack.code, message: ack.message });
      }
    },
    [sessionId],
  );

  useEffect(() => {
    const socket = getSocket();
    // Streamed events are applied once per frame (see frameBatch); anything ordered after
    // them (a replay's end) flushes them first.
    const events = frameBatch<SessionEvent>((batch) => {
      for (const event of batch) dispatch({ type: "event", event });
    });
    flushEvents.current = events.flush;
    const onEvent = (event: SessionEvent) => events.push(event);
    const onReplayComplete = (info: { sessionId: string; seq: number }) => {
      events.flush();
      dispatch({ type: "replay:complete", sessionId: info.sessionId, seq: info.seq });
    };
    const onConnect = () => void join(true);

    socket.on("agent:event", onEvent);
    socket.on("replay:complete", onReplayComplete);
    socket.on("connect", onConnect);
    // Resumes from the page's snapshot when there is one; a snapshot otherwise.
    if (socket.connected) void join(true);

    return () => {
      events.dispose();
      flushEvents.current = () => undefined;
      socket.off("agent:event", onEvent);
      socket.off("replay:complete", onReplayComplete);
      socket.off("connect", onConnect);
      if (socket.connected) void request(socket, "session:leave", { sessionId });
    };
  }, [sessionId, join]);

  useEffect(() => {
    // Without lastSeq the server answers with a snapshot, which clears needsResync.
    if (state.needsResync && !joining.current) void join(false);
  }, [state.needsResync, joins, join]);

  const send = useCallback(
    async (text: string) => {
      const clientId = newClientId();
      dispatch({ type: "send", clientId, prompt: text, createdAt: new Date().toISOString() });
      const ack = await request(getSocket(), "turn:send", { sessionId, text });
      if (ack.ok) dispatch({ type: "send:acked", clientId, turnId: ack.data.turnId });
      else dispatch({ type: "send:failed", clientId, error: `Not sent: ${ack.message}` });
      return ack.ok;
    },
    [sessionId],
  );

  // One page at a time; the reducer drops a page that no longer fits (a snapshot came between).
  const loadOlder = useCallback(async () => {
    const before = stateRef.current.older;
    if (before === null || loadingOlder.current) return;
    loadingOlder.current = true;
    setOlderLoading(true);
    setOlderError(null);
    const ack = await request(getSocket(), "session:older", { sessionId, before });
    loadingOlder.current = false;
    setOlderLoading(false);
    if (ack.ok) dispatch({ type: "older", page: ack.data, before });
    else setOlderError(ack.message);
  }, [sessionId]);

  const older = useMemo<OlderTurns>(
    () => ({ hasMore: state.older !== null, loading: olderLoading, error: olderError, load: () => void loadOlder() }),
    [state.older, olderLoading, olderError, loadOlder],
  );

  const runningTurnId = useMemo(() => {
    for (let i = state.turns.length - 1; i >= 0; i--) {
      const turn = state.turns[i]!;
      if (turn.status === "running") return turn.turnId;
    }
    return null;
  }, [state.turns]);

  const cancel = useCallback(async () => {
    if (!runningTurnId) return null;
    return request(getSocket(), "turn:cancel", { sessionId, turnId: runningTurnId });
  }, [sessionId, runningTurnId]);

  const steer = useCallback(
    (runId: string, message: string) => request(getSocket(), "subagent:steer", { sessionId, runId, message }),
    [sessionId],
  );
  const kill = useCallback((runId: string) => request(getSocket(), "subagent:kill", { sessionId, runId }), [sessionId]);
  const decide = useCallback(
    (callId: string, runId: string | null, decision: "approve" | "deny", reason?: string) =>
      request(getSocket(), "tool:decide", { sessionId, callId, runId, decision, ...(reason ? { reason } : {}) }),
    [sessionId],
  );

  const retry = useCallback(
    (runId: string, task?: string) => request(getSocket(), "subagent:retry", task === undefined ? { sessionId, runId } : { sessionId, runId, task }),
    [sessionId],
  );

  return { state, older, loaded, joinError, busy: isBusy(state), runningTurnId, send, cancel, steer, kill, decide, retry };
}
