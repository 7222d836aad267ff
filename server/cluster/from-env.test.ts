import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseEnv } from "@/lib/env";
import { startTestRedis, type TestRedis } from "@/test/support/redis/redis-server";
import { openTestDatabase, type TestDatabase } from "@/test/support/server/database";
import { createDemoModel } from "@/lib/model/demo-model";
import { runtimeWith, startHarness } from "@/test/support/server/app-harness";
import { startLiveApp } from "@/test/support/server/live-app";
import { clusterFromEnv } from "./from-env";

let db: TestDatabase;
let redis: TestRedis;

beforeAll(async () => {
  db = await openTestDatabase("cluster-env");
  redis = await startTestRedis();
});
afterAll(async () => {
  await redis?.stop();
  await db?.close();
});

describe("cluster membership from the environment", () => {
  it("without REDIS_URL there is no cluster: one process, and its health check says Redis is off", async () => {
    const config = parseEnv({ LEASE_MS: "2000", INSTANCE_ID: "solo" });
    expect(config.REDIS_URL).toBeUndefined();
    const { instanceId, cluster } = await clusterFromEnv(config, { models: db.models, store: db.store });
    expect([instanceId, cluster]).toEqual(["solo", undefined]);
    const app = await startLiveApp({ store: db.store, runner: runtimeWith(createDemoModel({ chunkDelayMs: 0 })), instanceId, cluster });
    try {
      expect(await (await fetch(`${app.baseUrl}/api/health`)).json()).toEqual({ ok: true, database: "up", instance: "solo", redis: "off" });
    } finally {
      await app.close();
    }
  });

  it("with REDIS_URL joins the cluster under INSTANCE_ID with the configured lease", async () => {
    const { instanceId, cluster } = await clusterFromEnv(parseEnv({ REDIS_URL: redis.url, LEASE_MS: "3000", INSTANCE_ID: "node-1" }), {
      models: db.models,
      store: db.store,
    });
    try {
      expect(instanceId).toBe("node-1");
      expect(cluster?.leaseMs).toBe(3000);
      expect(cluster?.redisStatus()).toBe("up");
    } finally {
      await cluster?.close();
    }
  });

  it("a test harness app joins a cluster when asked, and says so in its health check", async () => {
    const harness = await startHarness("cluster-harness", {
      runner: runtimeWith(createDemoModel({ chunkDelayMs: 0 })),
      clusterWith: { redisUrl: redis.url, instanceId: "harnessed", leaseMs: 2_000 },
    });
    try {
      expect(await (await fetch(`${harness.baseUrl}/api/health`)).json()).toMatchObject({ instance: "harnessed", redis: "up" });
    } finally {
      await harness.close();
    }
  });

  it("refuses a REDIS_URL that is not a redis:// address, and defaults the lease to 10 s and the name to host:pid:random", () => {
    expect(() => parseEnv({ REDIS_URL: "http://127.0.0.1:6379" })).toThrow(/REDIS_URL: must start with redis:\/\//);
    const config = parseEnv({});
    expect(config.LEASE_MS).toBe(10_000);
    expect(config.INSTANCE_ID).toBeUndefined();
  });
});
