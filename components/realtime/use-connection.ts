"use client";

import { useEffect, useState } from "react";
import { getSocket, markSignedOut } from "./socket";
import { HANDSHAKE_SIGNED_OUT } from "@/lib/contracts";

/**
 * "pending" is the first moments of a page load and is not worth showing; it becomes
 * "connecting" only if the first connection is slow. "reconnecting" follows a drop.
 * "signed-out": the server ended this browser's sign-in (signed out elsewhere, account
 * disabled, password changed); retrying cannot help, signing in again can.
 */
export type ConnectionState = "pending" | "connecting" | "connected" | "reconnecting" | "signed-out";

const SLOW_CONNECT_MS = 2_000;
/** Paced, so a server that keeps closing the connection does not get a tight loop. */
const RETRY_MS = 500;
/** The handshake refusals of server/realtime/handshake.ts that mean this browser's sign-in is over. */
const SIGN_IN_ENDED: readonly string[] = Object.values(HANDSHAKE_SIGNED_OUT);

export function useConnection(): ConnectionState {
  const [state, setState] = useState<ConnectionState>("pending");
  useEffect(() => {
    const socket = getSocket();
    let everConnected = socket.connected;
    let alive = true;
    let retry: ReturnType<typeof setTimeout> | undefined;
    setState(socket.connected ? "connected" : "pending");
    const slow = setTimeout(() => setState((s) => (s === "pending" ? "connecting" : s)), SLOW_CONNECT_MS);
    const onConnect = () => {
      everConnected = true;
      setState("connected");
    };
    // The server cuts the sockets of a sign-in it ended, and Socket.IO does not reconnect
    // after that by itself: try once more, and the handshake says why. Its refusal
    // "unauthorized: sign in first" (accounts) or "log in first" (APP_PASSWORD) means the
    // sign-in is over and retrying cannot help; any other answer is handled as before.
    const onDisconnect = (reason: string) => {
      setState(everConnected ? "reconnecting" : "connecting");
      if (reason === "io server disconnect") {
        clearTimeout(retry);
        retry = setTimeout(() => alive && !socket.connected && socket.connect(), RETRY_MS);
      }
    };
    const onConnectError = (error: Error) => {
      if (!SIGN_IN_ENDED.includes(error.message)) return;
      markSignedOut();
      setState("signed-out");
    };
    socket.on("connect", onConnect);
    socket.on("disconnect", onDisconnect);
    socket.on("connect_error", onConnectError);
    return () => {
      alive = false;
      clearTimeout(retry);
      clearTimeout(slow);
      socket.off("connect", onConnect);
      socket.off("disconnect", onDisconnect);
      socket.off("connect_error", onConnectError);
    };
  }, []);
  return state;
}
