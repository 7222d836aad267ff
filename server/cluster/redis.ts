import { createClient } from "redis";
import type { Logger } from "@/lib/log";

export type RedisClient = ReturnType<typeof createClient>;
export type RedisStatus = "up" | "down" | "off";

/**
 * The process's Redis connections (node-redis). Two kinds, on purpose:
 * - `adapter`: Socket.IO's adapter. Offline queue on: its stream reader retries in a
 *   tight loop when a command fails at once, so while Redis is away its commands wait.
 * - `events`: our event publishing. Offline queue off: while Redis is away a publish fails
 *   at once instead of piling events up in memory (viewers elsewhere resync when it is back).
 * `blocking` (a duplicate of `events`) is the one XREAD BLOCK reader for all mirrored chats.
 * Each reconnects by itself; the status is what the health check reports.
 */
export interface ClusterRedis {
  adapter: RedisClient;
  events: RedisClient;
  blocking: RedisClient;
  status(): RedisStatus;
  /** Called each time the event connection is back after an outage. */
  onReconnect(listener: () => void): void;
  close(): Promise<void>;
}

const PUBLISH_HIGH_WATER_MARK = 8 * 1024 * 1024;
const reconnectStrategy = (retries: number) => Math.min(100 * 2 ** Math.min(retries, 5), 2_000);

export async function connectClusterRedis(url: string, log?: Pick<Logger, "warn" | "info">): Promise<ClusterRedis> {
  let up = false;
  let warned = false;
  let wasDown = false;
  const reconnected: (() => void)[] = [];
  const watch = (client: RedisClient, name: string) => {
    // One line per outage, not one per failed command.
    client.on("error", (error: unknown) => {
      if (name === "events") {
        up = false;
        wasDown = true;
      }
      if (!warned) {
        warned = true;
        log?.warn("Redis is unreachable; serving this process's viewers alone until it is back", { error: String(error) });
      }
    });
    client.on("ready", () => {
      if (name !== "events") return;
      if (warned) log?.info("Redis is back");
      up = true;
      warned = false;
      if (wasDown) {
        wasDown = false;
        for (const listener of reconnected) listener();
      }
    });
    return client;
  };
  const socket = { reconnectStrategy, connectTimeout: 2_000 };
  const adapter = watch(createClient({ url, socket }), "adapter");
  // node-redis writes until the socket's buffer passes its high-water mark, then waits for
  // 'drain' and an event-loop turn: at Node's 16 KiB that let a busy owner put only ~50
  // events a turn on the wire, and viewers on other processes fell 1–2 s behind (measured
  // under `npm run load -- --processes 3`). Publishing is bounded upstream, by the turn.
  const events = watch(
    createClient({
      url,
      socket: { ...socket, writableHighWaterMark: PUBLISH_HIGH_WATER_MARK } as typeof socket,
      disableOfflineQueue: true,
    }),
    "events",
  );
  const blocking = watch(events.duplicate(), "blocking");
  await Promise.all([adapter.connect(), events.connect(), blocking.connect()]);
  up = events.isReady;
  const clients = [adapter, events, blocking];
  return {
    adapter,
    events,
    blocking,
    status: () => (up && events.isReady ? "up" : "down"),
    onReconnect: (listener) => void reconnected.push(listener),
    async close() {
      await Promise.all(clients.map((c) => (c.isOpen ? c.close().catch(() => c.destroy()) : undefined)));
    },
  };
}
