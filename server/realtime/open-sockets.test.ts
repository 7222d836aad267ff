import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RedisClient } from "@/server/cluster/redis";
import { startTestRedis, type TestRedis } from "@/test/support/redis/redis-server";
import { memoryOpenSockets, redisOpenSockets, type OpenSockets } from "./open-sockets";

/**
 * The connection count per person, on a real redis-server: processes share one count, a
 * process that stops renewing (it died) stops counting, and with Redis away each process
 * counts its own.
 */
let redis: TestRedis;
let client: RedisClient;
const counts: OpenSockets[] = [];
const open = (instanceId: string, ttlMs = 10_000) => {
  const count = redisOpenSockets(client, instanceId, { ttlMs });
  counts.push(count);
  return count;
};

beforeAll(async () => {
  redis = await startTestRedis();
  client = createClient({ url: redis.url, disableOfflineQueue: true, socket: { reconnectStrategy: () => 100 } });
  client.on("error", () => undefined);
  await client.connect();
});
afterAll(async () => {
  for (const count of counts) count.stop();
  await client?.close().catch(() => undefined);
  await redis?.stop();
});

describe("open sockets", () => {
  it("in memory: one person's sockets up to the limit, another person's apart, a closed one frees its place", async () => {
    const count = memoryOpenSockets();
    expect([await count.admit("ann", "1", 2), await count.admit("ann", "2", 2), await count.admit("ann", "3", 2)]).toEqual([
      true,
      true,
      false,
    ]);
    expect(await count.admit("bob", "1", 2)).toBe(true);
    count.leave("ann", "1");
    expect(await count.admit("ann", "3", 2)).toBe(true);
  });

  it("in Redis: two processes fill one person's limit together, and a socket closed on one makes room on the other", async () => {
    const [a, b] = [open("a"), open("b")];
    expect(await a.admit("cat", "s1", 3)).toBe(true);
    expect(await b.admit("cat", "s1", 3)).toBe(true);
    expect(await a.admit("cat", "s2", 3)).toBe(true);
    expect(await b.admit("cat", "s2", 3)).toBe(false);
    a.leave("cat", "s1");
    await expect.poll(() => b.admit("cat", "s2", 3), { timeout: 5_000 }).toBe(true);
  });

  it("in Redis: the sockets of a process that stopped renewing stop counting, those of one that renews go on", async () => {
    const [dead, alive, newcomer] = [open("dead", 600), open("alive", 600), open("new", 600)];
    expect(await dead.admit("dan", "s1", 2)).toBe(true);
    expect(await alive.admit("dan", "s1", 2)).toBe(true);
    expect(await newcomer.admit("dan", "s1", 2)).toBe(false);
    const expiry = (member: string) => client.zScore("dlg:sockets:dan", member);
    const firstExpiry = (await expiry("alive/s1"))!;
    dead.stop();
    // The live process pushes its socket's expiry on; the dead one's runs out, and the newcomer gets its place.
    await expect.poll(async () => (await expiry("alive/s1"))! > firstExpiry, { timeout: 5_000 }).toBe(true);
    await expect.poll(() => newcomer.admit("dan", "s1", 2), { timeout: 10_000, interval: 100 }).toBe(true);
    expect(await expiry("dead/s1")).toBeNull();
    expect(await expiry("alive/s1")).not.toBeNull();
    expect(await alive.admit("dan", "s2", 2)).toBe(false);
  });

  it("with Redis away, each process counts its own sockets", async () => {
    const [a, b] = [open("away-a"), open("away-b")];
    await redis.stop();
    expect([await a.admit("eve", "1", 2), await a.admit("eve", "2", 2), await a.admit("eve", "3", 2)]).toEqual([true, true, false]);
    expect(await b.admit("eve", "1", 2)).toBe(true);
    await redis.start();
  });
});
