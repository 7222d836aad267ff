"use client";

import { useEffect, useState, useSyncExternalStore } from "react";
import type { ConnectionState } from "@/components/realtime/use-connection";

/** A reconnect this long without success is worth telling: a short blip is not. */
const STUCK_MS = 8_000;

function subscribe(onChange: () => void): () => void {
  window.addEventListener("online", onChange);
  window.addEventListener("offline", onChange);
  return () => {
    window.removeEventListener("online", onChange);
    window.removeEventListener("offline", onChange);
  };
}

/** The browser's own word on the network; `rendered` is what the server's HTML assumes. */
export function useOnline(rendered = true): boolean {
  return useSyncExternalStore(
    subscribe,
    () => navigator.onLine,
    () => rendered,
  );
}

/**
 * Why the chat cannot reach the server, when it cannot: the browser says it is offline,
 * or the socket has been trying to (re)connect for STUCK_MS. Null while all is well.
 */
export function useOffline(connection: ConnectionState): "offline" | "unreachable" | null {
  const online = useOnline();
  const [stuck, setStuck] = useState(false);
  useEffect(() => {
    if (connection !== "reconnecting" && connection !== "connecting") return;
    const timer = setTimeout(() => setStuck(true), STUCK_MS);
    return () => {
      clearTimeout(timer);
      setStuck(false);
    };
  }, [connection]);
  if (!online) return "offline";
  return stuck ? "unreachable" : null;
}
