"use client";

import { useMemo, useState } from "react";
import { io, type Socket } from "socket.io-client";
import {
  SHARE_HANDSHAKE,
  SHARE_NAMESPACE,
  type Ack,
  type SharedChat,
  type ShareClientToServerEvents,
  type ShareServerToClientEvents,
} from "@/lib/contracts";
import { useSessionFeed, type FeedChannel } from "@/components/chat/use-session-feed";

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

const CLOSED: Ack<never> = { ok: false, code: "unavailable", message: "Not connected to the server." };

function ask<K extends keyof ShareClientToServerEvents>(
  socket: ShareClientSocket,
  name: K,
  input: Parameters<ShareClientToServerEvents[K]>[0],
): Promise<Parameters<Parameters<ShareClientToServerEvents[K]>[1]>[0]> {
  type Result = Parameters<Parameters<ShareClientToServerEvents[K]>[1]>[0];
  return new Promise((resolve) => {
    // As in components/realtime/socket.ts: the typed emit cannot follow a generic key.
    const timed = socket.timeout(TIMEOUT_MS);
    (timed.emit as unknown as (n: K, i: unknown, cb: (err: Error | null, r: Result) => void) => void).call(
      timed,
      name,
      input,
      (err, result) => {
        resolve(err ? ({ ok: false, code: "unavailable", message: "The server did not answer in time." } as Ack<never>) : result);
      },
    );
  });
}

/**
 * One shared chat, read-only, over its own connection to the share namespace: the owner's
 * feed (useSessionFeed, the same reducer and the same join, replay and resync), fed by a
 * snapshot or a replay on every (re)connect and by the chat's live events. Nothing here
 * can send a command that changes the chat; the server would refuse it anyway.
 */
export function useSharedSession(token: string) {
  const [chat, setChat] = useState<SharedChat | null>(null);
  const [status, setStatus] = useState<SharedStatus>({ kind: "loading" });
  const channel = useMemo<FeedChannel>(() => {
    let socket: ShareClientSocket | null = null;
    /** The chat's header from the last join, shown with the join's turns (one update). */
    let joinedChat: SharedChat | null = null;
    return {
      open: (on) => {
        const own: ShareClientSocket = io(SHARE_NAMESPACE, {
          auth: { token },
          reconnectionDelayMax: 5_000,
          transports: ["websocket", "polling"],
          tryAllTransports: true,
        });
        socket = own;
        let ended = false;
        own.on("agent:event", on.event);
        own.on("replay:complete", on.replayComplete);
        own.on("connect", on.connect);
        own.on("share:revoked", ({ reason }) => {
          ended = true;
          on.flush();
          setStatus({ kind: "ended", reason });
        });
        // The server closed the socket without ending the link: the sign-in it was opened under
        // ended. Socket.IO does not reconnect after that by itself; one try lets the handshake say why.
        own.on("disconnect", (reason) => {
          if (!ended && reason === "io server disconnect") setTimeout(() => !ended && !own.connected && own.connect(), 500);
        });
        own.on("connect_error", (error) => {
          if (ended) return;
          if (error.message === SHARE_HANDSHAKE.notFound) setStatus({ kind: "not_found" });
          else if (error.message === SHARE_HANDSHAKE.signIn) setStatus({ kind: "sign_in" });
        });
        return () => {
          own.disconnect();
          socket = null;
        };
      },
      connected: () => socket?.connected ?? false,
      join: async (lastSeq) => {
        if (!socket) return CLOSED;
        const ack = await ask(socket, "share:join", lastSeq === undefined ? {} : { lastSeq });
        if (!ack.ok) return ack;
        joinedChat = ack.data.chat;
        return { ok: true, data: ack.data.join };
      },
      older: (before) => (socket ? ask(socket, "share:older", { before }) : Promise.resolve(CLOSED)),
      joined: () => {
        setChat(joinedChat);
        setStatus({ kind: "ready" });
      },
      joinFailed: (problem, loaded) => {
        if (problem.code === "not_found") setStatus({ kind: "not_found" });
        else if (!loaded) setStatus({ kind: "error", message: problem.message });
      },
    };
  }, [token]);
  const { state, older } = useSessionFeed(channel, "");
  return { state, chat, status, older };
}
