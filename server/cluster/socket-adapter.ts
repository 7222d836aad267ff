import { createAdapter } from "@socket.io/redis-streams-adapter";
import type { RedisClient } from "./redis";

/**
 * Socket.IO across processes. The streams adapter rather than the pub/sub one: it reads
 * a Redis stream from its last offset, so a broadcast sent while Redis restarts is
 * delivered once it is back instead of being dropped with the subscription.
 */
export function streamsAdapter(client: RedisClient, leaseMs: number) {
  const heartbeatInterval = Math.min(2_000, Math.max(250, Math.floor(leaseMs / 3)));
  return createAdapter(endingGracefully(client), {
    streamName: "dlg:socket.io",
    heartbeatInterval,
    heartbeatTimeout: heartbeatInterval * 3,
  });
}

/**
 * The adapter makes its own connections from this client (`duplicate`) and ends them with
 * `disconnect()`, node-redis's immediate end: it rejects a command still on its way (its
 * first SUBSCRIBE, when a process stops right after it started) with nobody listening,
 * an unhandled rejection. Its copies end with `close()` instead, which lets what was sent
 * be answered first. The client is the adapter's own (see redis.ts), so nothing else is
 * touched.
 */
function endingGracefully(client: RedisClient): RedisClient {
  const duplicate = client.duplicate.bind(client);
  client.duplicate = ((...args: Parameters<RedisClient["duplicate"]>) => {
    const copy = duplicate(...args);
    copy.disconnect = () => copy.close();
    return copy;
  }) as RedisClient["duplicate"];
  return client;
}
