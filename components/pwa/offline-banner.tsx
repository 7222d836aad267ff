"use client";

import type { ConnectionState } from "@/components/realtime/use-connection";
import { useOffline } from "./use-offline";

/**
 * Said calmly while the chat cannot reach the server. What it says is what the composer
 * does: a message sent while the socket is down waits for it as long as a command waits
 * for its answer (components/realtime/socket.ts), then shows "Not sent" and is dropped,
 * so it has to be sent again once the connection is back.
 */
export function OfflineBanner({ connection }: { connection: ConnectionState }) {
  const offline = useOffline(connection);
  if (!offline) return null;
  return (
    <div
      role="status"
      data-testid="offline-banner"
      data-reason={offline}
      className="border-b border-zinc-200 bg-zinc-50 px-4 py-2 text-sm text-zinc-700 dark:border-zinc-800 dark:bg-zinc-900 dark:text-zinc-300"
    >
      <span className="font-medium">{offline === "offline" ? "Offline" : "Cannot reach the server"}</span> — showing what was loaded. A
      message sent now is marked “Not sent” unless the connection is back within seconds: send it again once you are back online.
    </div>
  );
}
