import { createAdapter } from "@socket.io/redis-streams-adapter";
import type { AppServer } from "@/server/realtime/types";
import type { RedisClient } from "./redis";

/**
 * Socket.IO across processes. The streams adapter rather than the pub/sub one: it reads
 * a Redis stream from its last offset, so a broadcast sent while Redis restarts is
 * delivered once it is back instead of being dropped with the subscription.
 */
export function streamsAdapter(client: RedisClient, leaseMs: number) {
  const heartbeatInterval = Math.min(2_000, Math.max(250, Math.floor(leaseMs / 3)));
  return createAdapter(client, { streamName: "dlg:socket.io", heartbeatInterval, heartbeatTimeout: heartbeatInterval * 3 });
}

/**
 * Waits (at most 10 s: a loaded machine) until each namespace's adapter has subscribed to
 * its private channel, once, from the start. The adapter does not await its first
 * SUBSCRIBE: closing the connection while it is still on the way rejects it with nobody
 * listening, an unhandled rejection (seen when a process stops right after it started).
 * Later resubscriptions (after Redis restarts) are node-redis's own and handled there.
 */
export async function adaptersSubscribed(io: AppServer, events: RedisClient): Promise<void> {
  const channels = [...io._nsps.values()].map((nsp) => `socket.io#${nsp.name}#${(nsp.adapter as { uid?: string }).uid ?? ""}#`);
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    // A loaded machine may still be connecting: the SUBSCRIBE is on its way all the same.
    if (!events.isReady) {
      await new Promise((r) => setTimeout(r, 20));
      continue;
    }
    try {
      const counts = await events.pubSubNumSub(channels);
      if (channels.every((channel) => Number(counts[channel] ?? 0) > 0)) return;
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}
