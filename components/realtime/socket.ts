"use client";

import { io, type Socket } from "socket.io-client";
import type { Ack, AckCallback, ClientToServerEvents, ServerToClientEvents } from "@/lib/contracts";

/** The one typed client: server facts in, acknowledged commands out. */
export type AppClientSocket = Socket<ServerToClientEvents, ClientToServerEvents>;

export type CommandName = keyof ClientToServerEvents;
export type CommandInput<K extends CommandName> = Parameters<ClientToServerEvents[K]>[0];
export type CommandData<K extends CommandName> = Parameters<ClientToServerEvents[K]>[1] extends AckCallback<infer T> ? T : never;

const DEFAULT_TIMEOUT_MS = 10_000;

let shared: AppClientSocket | null = null;
let signedOut = false;

/** The server ended this browser's sign-in: commands answer that at once instead of "Reconnecting…". */
export function markSignedOut(): void {
  signedOut = true;
}

/**
 * Created once per page load and shared by every component: one connection carries the
 * session list, the open session and commands. Same origin, so the identity cookie rides along.
 */
export function getSocket(): AppClientSocket {
  if (!shared) {
    // WebSocket first: long-polling first (the default) costs a handshake and an upgrade
    // before the join can go; a proxy that refuses WebSockets still gets polling.
    shared = io({ autoConnect: true, reconnectionDelayMax: 5_000, transports: ["websocket", "polling"], tryAllTransports: true });
  }
  return shared;
}

/**
 * Emits a command and resolves with its Ack. Never rejects: a timeout or a lost connection
 * becomes an `unavailable` Ack so every caller handles failures the same way.
 */
export function request<K extends CommandName>(
  socket: AppClientSocket,
  event: K,
  input: CommandInput<K>,
  timeoutMs = DEFAULT_TIMEOUT_MS,
): Promise<Ack<CommandData<K>>> {
  return new Promise((resolve) => {
    if (signedOut && !socket.connected) {
      resolve({ ok: false, code: "unauthorized", message: "You were signed out. Sign in again to go on." });
      return;
    }
    // socket.io's typed emit cannot follow a generic event key through its overloads;
    // narrowing here keeps every call site fully typed.
    const timed = socket.timeout(timeoutMs);
    const emit = timed.emit as unknown as (
      event: K,
      input: CommandInput<K>,
      ack: (err: Error | null, result: Ack<CommandData<K>>) => void,
    ) => void;
    emit.call(timed, event, input, (err, result) => {
      if (err) {
        resolve({
          ok: false,
          code: "unavailable",
          message: socket.connected ? "The server did not answer in time. Please try again." : "Not connected to the server. Reconnecting…",
        });
        return;
      }
      resolve(result);
    });
  });
}
