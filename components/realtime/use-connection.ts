"use client";

import { useEffect, useState } from "react";
import { signInEnded } from "@/components/auth/account-api";
import { getSocket, markSignedOut } from "./socket";

/**
 * "pending" is the first moments of a page load and is not worth showing; it becomes
 * "connecting" only if the first connection is slow. "reconnecting" follows a drop.
 * "signed-out": the server ended this browser's sign-in (signed out elsewhere, account
 * disabled, password changed); retrying cannot help, signing in again can.
 */
export type ConnectionState = "pending" | "connecting" | "connected" | "reconnecting" | "signed-out";

const SLOW_CONNECT_MS = 2_000;
const RETRY_MS = 2_000;

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
    // The server cuts a socket whose sign-in ended and refuses its handshakes ("unauthorized:
    // …"); Socket.IO does not retry either by itself. Ask the server which it was: an ended
    // sign-in says so, anything else (a restart) tries again.
    const checkSignIn = async () => {
      if (await signInEnded()) {
        markSignedOut();
        setState("signed-out");
      } else if (alive) {
        // Paced: a handshake refused for another reason must not become a tight loop.
        retry = setTimeout(() => alive && !socket.connected && socket.connect(), RETRY_MS);
      }
    };
    const onDisconnect = (reason: string) => {
      setState(everConnected ? "reconnecting" : "connecting");
      if (reason === "io server disconnect") void checkSignIn();
    };
    const onConnectError = (error: Error) => {
      if (error.message.startsWith("unauthorized")) void checkSignIn();
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
