"use client";

import { useEffect, useState } from "react";
import { getSocket } from "./socket";

/**
 * "pending" is the first moments of a page load and is not worth showing; it becomes
 * "connecting" only if the first connection is slow. "reconnecting" follows a drop.
 */
export type ConnectionState = "pending" | "connecting" | "connected" | "reconnecting";

const SLOW_CONNECT_MS = 2_000;

export function useConnection(): ConnectionState {
  const [state, setState] = useState<ConnectionState>("pending");
  useEffect(() => {
    const socket = getSocket();
    let everConnected = socket.connected;
    setState(socket.connected ? "connected" : "pending");
    const slow = setTimeout(() => setState((s) => (s === "pending" ? "connecting" : s)), SLOW_CONNECT_MS);
    const onConnect = () => {
      everConnected = true;
      setState("connected");
    };
    const onDisconnect = () => setState(everConnected ? "reconnecting" : "connecting");
    socket.on("connect", onConnect);
    socket.on("disconnect", onDisconnect);
    return () => {
      clearTimeout(slow);
      socket.off("connect", onConnect);
      socket.off("disconnect", onDisconnect);
    };
  }, []);
  return state;
}
