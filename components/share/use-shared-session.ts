"use client";

import { useCallback, useEffect, useMemo, useReducer, useRef, useState } from "react";
import { io, type Socket } from "socket.io-client";
import {
  SHARE_HANDSHAKE,
  SHARE_NAMESPACE,
  type Ack,
  type SessionEvent,
  type SharedChat,
  type ShareClientToServerEvents,
  type ShareServerToClientEvents,
} from "@/lib/contracts";
import { initialSessionState, sessionReducer, type SessionAction, type SessionState } from "@/lib/chat/session-state";
import { frameBatch } from "@/components/chat/frame-batch";
import type { OlderTurns } from "@/components/chat/use-session";

/** The share namespace's typed client (lib/contracts/share.ts). */
export type ShareClientSocket = Socket<ShareServerToClientEvents, ShareClientToServerEvents>;

/**
 * Where the viewer stands: `ended` when the link was revoked, ran out or its chat was
 * deleted while the page was open (the server said so, then closed the socket);
 * `not_found` when the link did not open at all (any of those, before the page loaded).
 */
export type SharedStatus =
  | { kind: "loading" }
  | { kind: "ready" }
  | { kind: "not_found" }
  | { kind: "sign_in" }
  | { kind: "ended"; reason: "revoked" | "expired" | "deleted" }
  | { kind: "error"; message: string };

const TIMEOUT_MS = 10_000;

function ask<K extends keyof ShareClientToServerEvents>(
  socket: ShareClientSocket,
  name: K,
  input: Parameters<ShareClientToServerEvents[K]>[0],
): Promise<Parameters<Parameters<ShareClientToServerEvents[K]>[1]>[0]> {
  type Result = Parameters<Parameters<ShareClientToServerEvents[K]>[1]>[0];
  return new Promise((resolve) => {
    // As in components/realtime/socket.ts: the typed emit cannot follow a generic key.
    const timed = socket.timeout(TIMEOUT_MS);
    (timed.emit as unknown as (n: K, i: unknown, cb: (err: Error | null, r: Result) => void) => void).call(timed, name, input, (err, result) => {
      resolve(err ? ({ ok: false, code: "unavailable", message: "The server did not answer in time." } as Ack<never>) : result);
    });
  });
}

/** The owner's reducer; the viewer learns the chat's id from its first join, and adopts it then. */
function sharedReducer(state: SessionState, action: SessionAction): SessionState {
  if (action.type === "joined" && state.sessionId === "") return sessionReducer(initialSessionState(action.result.sessionId), action);
  return sessionReducer(state, action);
}

/**
 * One shared chat, read-only, over its own connection to the share namespace: the same
 * reducer as the owner's view (lib/chat/session-state.ts), fed by a snapshot or a replay
 * on every (re)connect and by the chat's live events. Nothing here can send a command
 * that changes the chat; the server would refuse it anyway.
 */
export function useSharedSession(token: string) {
  const [state, dispatch] = useReducer(sharedReducer, "", initialSessionState);
  const [chat, setChat] = useState<SharedChat | null>(null);
  const [status, setStatus] = useState<SharedStatus>({ kind: "loading" });
  const socketRef = useRef<ShareClientSocket | null>(null);
  const stateRef = useRef<SessionState>(state);
  const loaded = useRef(false);
  const [olderLoading, setOlderLoading] = useState(false);
  const [olderError, setOlderError] = useState<string | null>(null);

  useEffect(() => {
    stateRef.current = state;
  }, [state]);

  const join = useCallback(async (resume: boolean) => {
    const socket = socketRef.current;
    if (!socket) return;
    const lastSeq = resume && loaded.current ? stateRef.current.seq : undefined;
    const ack = await ask(socket, "share:join", lastSeq === undefined ? {} : { lastSeq });
    if (ack.ok) {
      dispatch({ type: "joined", result: ack.data.join });
      setChat(ack.data.chat);
      loaded.current = true;
      setStatus({ kind: "ready" });
    } else if (ack.code === "not_found") setStatus({ kind: "not_found" });
    else if (!loaded.current) setStatus({ kind: "error", message: ack.message });
  }, []);

  useEffect(() => {
    const socket: ShareClientSocket = io(SHARE_NAMESPACE, { auth: { token }, reconnectionDelayMax: 5_000, transports: ["websocket", "polling"], tryAllTransports: true });
    socketRef.current = socket;
    const events = frameBatch<SessionEvent>((batch) => {
      for (const event of batch) dispatch({ type: "event", event });
    });
    let ended = false;
    socket.on("agent:event", (event) => events.push(event));
    socket.on("replay:complete", (info) => {
      events.flush();
      dispatch({ type: "replay:complete", sessionId: info.sessionId, seq: info.seq });
    });
    socket.on("connect", () => void join(true));
    socket.on("share:revoked", ({ reason }) => {
      ended = true;
      events.flush();
      setStatus({ kind: "ended", reason });
    });
    // The server closed the socket without ending the link: the sign-in it was opened under
    // ended. Socket.IO does not reconnect after that by itself; one try lets the handshake say why.
    socket.on("disconnect", (reason) => {
      if (!ended && reason === "io server disconnect") setTimeout(() => !ended && !socket.connected && socket.connect(), 500);
    });
    socket.on("connect_error", (error) => {
      if (ended) return;
      if (error.message === SHARE_HANDSHAKE.notFound) setStatus({ kind: "not_found" });
      else if (error.message === SHARE_HANDSHAKE.signIn) setStatus({ kind: "sign_in" });
    });
    return () => {
      events.dispose();
      socket.disconnect();
      socketRef.current = null;
    };
  }, [token, join]);

  useEffect(() => {
    if (state.needsResync && socketRef.current?.connected) void join(false);
  }, [state.needsResync, join]);

  const loadOlder = useCallback(async () => {
    const before = stateRef.current.older;
    const socket = socketRef.current;
    if (before === null || !socket || olderLoading) return;
    setOlderLoading(true);
    setOlderError(null);
    const ack = await ask(socket, "share:older", { before });
    setOlderLoading(false);
    if (ack.ok) dispatch({ type: "older", page: ack.data, before });
    else setOlderError(ack.message);
  }, [olderLoading]);

  const older = useMemo<OlderTurns>(
    () => ({ hasMore: state.older !== null, loading: olderLoading, error: olderError, load: () => void loadOlder() }),
    [state.older, olderLoading, olderError, loadOlder],
  );

  return { state, chat, status, older };
}
