import { mkdtempSync, rmSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDemoModel } from "@/lib/model/demo-model";
import { answersPing } from "@/server/db/connect";
import { startMongoJavaServer, type RunningMongo } from "@/server/db/mongo-java-server";
import { runtimeWith, startHarness, type Harness } from "@/test/support/server/app-harness";
import { readiness, type HealthDeps } from "./health-routes";

/**
 * The orchestrator's probes on the real app over a real database that goes away and comes
 * back: readiness follows the database (503 naming it while it is down), liveness does
 * not, both answer without a sign-in and whatever Host the probe names, and /api/health
 * stays as it was. (A file-backed test server on a fixed port, so the driver finds it again.)
 */
let dir: string;
let mongo: RunningMongo;
let harness: Harness;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "delegate-ready-"));
  mongo = await startMongoJavaServer({ h2File: path.join(dir, "db.mv") });
  harness = await startHarness("ready", {
    runner: runtimeWith(createDemoModel()),
    mongoUri: `${mongo.uri}ready`,
    // The app's own ping (connect.ts), on the connection the app writes through.
    dbUp: () => answersPing(harness.connection),
  });
}, 60_000);

afterAll(async () => {
  await harness?.close().catch(() => undefined);
  await mongo?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function get(pathname: string, host?: string): Promise<{ status: number; body: unknown }> {
  const url = new URL(harness.baseUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: url.hostname, port: url.port, path: pathname, agent: false, ...(host ? { headers: { host } } : {}) },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (text += chunk));
        res.on("end", () => {
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {
            // Not JSON (the Host refusal is text).
          }
          resolve({ status: res.statusCode ?? 0, body });
        });
      },
    );
    req.on("error", reject);
    req.end();
  });
}

async function until(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const start = Date.now();
  while (!(await check())) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("health probes", () => {
  it("answers ready and live while the database is up, with no sign-in and for a Host no ALLOWED_HOSTS lists", async () => {
    expect(await get("/api/health/ready")).toEqual({
      status: 200,
      body: { ok: true, down: [], degraded: [], database: "up", redis: "off", stopping: false },
    });
    expect(await get("/api/health/live")).toEqual({ status: 200, body: { ok: true } });
    // A kubelet names the pod's address: the probes answer it, the rest of the app does not.
    expect((await get("/api/health/ready", "10.1.2.3:3000")).status).toBe(200);
    expect((await get("/api/health/live", "10.1.2.3:3000")).status).toBe(200);
    expect((await get("/api/health", "10.1.2.3:3000")).status).toBe(421);
    expect(await get("/api/health")).toMatchObject({ status: 200, body: { ok: true, database: "up" } });
  });

  it("answers 503 naming the database while it is down, stays live, and is ready again once it is back", async () => {
    await mongo.stop();
    await until(async () => (await get("/api/health/ready")).status === 503, 20_000, "readiness to see the outage");
    expect(await get("/api/health/ready")).toEqual({
      status: 503,
      body: { ok: false, down: ["database"], degraded: [], database: "down", redis: "off", stopping: false },
    });
    expect(await get("/api/health/live")).toEqual({ status: 200, body: { ok: true } });
    // The old health check keeps its answer: 200, saying the database is down.
    expect(await get("/api/health")).toMatchObject({ status: 200, body: { ok: true, database: "down" } });

    mongo = await startMongoJavaServer({ h2File: path.join(dir, "db.mv"), port: mongo.port });
    await until(async () => (await get("/api/health/ready")).status === 200, 60_000, "readiness once the database is back");
    expect((await get("/api/health/ready")).body).toMatchObject({ ok: true, database: "up" });
  }, 120_000);

  it("once the process is shutting down, is neither live nor ready", async () => {
    // What SIGTERM starts (server/shutdown.ts): the registry stops taking turns first, while the HTTP server still answers.
    await harness.app.registry.shutdown();
    expect(await get("/api/health/live")).toEqual({ status: 503, body: { ok: false, stopping: true } });
    expect(await get("/api/health/ready")).toEqual({
      status: 503,
      body: { ok: false, down: ["process"], degraded: [], database: "up", redis: "off", stopping: true },
    });
  });
});

describe("readiness", () => {
  const up: HealthDeps = { dbUp: () => true, stopping: () => false };

  it("names every part that is down", async () => {
    expect(await readiness(up)).toEqual({ ok: true, down: [], degraded: [], database: "up", redis: "off", stopping: false });
    expect(await readiness({ ...up, redis: () => "up" })).toMatchObject({ ok: true, redis: "up", degraded: [] });
    expect(await readiness({ ...up, dbRestarting: () => true })).toMatchObject({ ok: false, down: ["database"], database: "restarting" });
    expect(await readiness({ ...up, dbUp: async () => false, redis: () => "down", stopping: () => true })).toMatchObject({
      ok: false,
      down: ["database", "process"],
      degraded: ["redis"],
      stopping: true,
    });
  });

  it("stays ready without Redis, saying it is degraded: every replica would otherwise leave the proxy at once", async () => {
    expect(await readiness({ ...up, redis: () => "down" })).toEqual({
      ok: true,
      down: [],
      degraded: ["redis"],
      database: "up",
      redis: "down",
      stopping: false,
    });
  });
});
