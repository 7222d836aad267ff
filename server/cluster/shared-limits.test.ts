import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACCOUNT_ROUTES } from "@/lib/contracts/account";
import { createDemoModel } from "@/lib/model/demo-model";
import { Cluster } from "@/server/cluster/cluster";
import { mongoLeases } from "@/server/cluster/lease";
import { startTestRedis, type TestRedis } from "@/test/support/redis/redis-server";
import { runtimeWith } from "@/test/support/server/app-harness";
import { openTestDatabase, type TestDatabase } from "@/test/support/server/database";
import { request, startLiveApp, type LiveApp } from "@/test/support/server/live-app";
import type { AppOptions } from "@/server/app";

/**
 * Limits that hold across processes: two apps on one database and one real redis-server,
 * as two processes behind a proxy that does not pin. A flood spread over both meets one
 * budget; a guesser spread over both meets one throttle; a stranger's failures lock the
 * stranger's address, not the owner's; with Redis gone, each process still limits.
 * Requests come from different loopback addresses (127.0.0.x) to play different clients.
 */

let redis: TestRedis;
let db: TestDatabase;
const apps: LiveApp[] = [];
let gate: [LiveApp, LiveApp];
let accounts: [LiveApp, LiveApp];
const PASSWORD = "the right one";
const OWNER = { email: "owner@example.com", password: "correct horse battery" };

async function startPair(options: Partial<AppOptions>): Promise<[LiveApp, LiveApp]> {
  const pair: LiveApp[] = [];
  for (const name of ["a", "b"]) {
    const instanceId = `${options.password ? "gate" : "accounts"}-${name}`;
    const cluster = await Cluster.connect(
      { redisUrl: redis.url, instanceId, leaseMs: 10_000 },
      { leases: mongoLeases(db.models), store: db.store },
    );
    const app = await startLiveApp({
      runner: runtimeWith(createDemoModel({ chunkDelayMs: 0 })),
      store: db.store,
      cluster,
      instanceId,
      ...options,
    });
    pair.push(app);
    apps.push(app);
  }
  return pair as [LiveApp, LiveApp];
}

beforeAll(async () => {
  redis = await startTestRedis();
  db = await openTestDatabase("shared_limits");
  gate = await startPair({ password: PASSWORD, loginSessions: db.models.LoginSession });
  accounts = await startPair({
    accounts: { mode: "open", models: db.models },
    // A window of 20 s: the whole flood lands in one.
    personRateLimit: { burst: 20, perSecond: 1 },
  });
}, 60_000);
afterAll(async () => {
  await Promise.all(apps.map((app) => app.close().catch(() => undefined)));
  await redis?.stop();
  await db?.close();
});

interface Reply {
  status: number;
  retryAfter: string | undefined;
  setCookie: string[];
  body: string;
}

/** A JSON POST sent from `from` (a loopback address), as that client. */
function post(app: LiveApp, path: string, body: unknown, from: string, cookie = ""): Promise<Reply> {
  const url = new URL(path, app.baseUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      {
        method: "POST",
        localAddress: from,
        headers: { "content-type": "application/json", origin: url.origin, ...(cookie ? { cookie } : {}) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            retryAfter: res.headers["retry-after"],
            setCookie: res.headers["set-cookie"] ?? [],
            body: Buffer.concat(chunks).toString("utf8"),
          }),
        );
      },
    );
    req.on("error", reject);
    req.end(JSON.stringify(body));
  });
}

const gateLogin = (app: LiveApp, password: string, from: string) => post(app, "/api/login", { password }, from);
const signIn = (app: LiveApp, password: string, from: string) => post(app, ACCOUNT_ROUTES.signIn, { email: OWNER.email, password }, from);

describe("the APP_PASSWORD gate over two processes", () => {
  it("a guesser alternating between them meets one throttle: five wrong passwords, then refused on both", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push((await gateLogin(gate[i % 2]!, `guess ${i}`, "127.0.0.2")).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429, 429]);
    const refused = await gateLogin(gate[1], PASSWORD, "127.0.0.2");
    expect(refused.status).toBe(429);
    expect(Number(refused.retryAfter)).toBeGreaterThan(0);
    expect(JSON.parse(refused.body).error.message).toMatch(/Too many wrong passwords/);
  });

  it("the guesser's address is locked, another address is not", async () => {
    expect((await gateLogin(gate[0], PASSWORD, "127.0.0.3")).status).toBe(200);
    expect((await gateLogin(gate[1], PASSWORD, "127.0.0.2")).status).toBe(429);
  });
});

describe("account sign-in over two processes", () => {
  let session = "";

  beforeAll(async () => {
    const res = await post(accounts[0], ACCOUNT_ROUTES.signUp, OWNER, "127.0.0.1");
    expect(res.status, res.body).toBe(200);
    session = res.setCookie.find((c) => c.startsWith("dlg_session="))!.split(";")[0]!;
  });

  it("a stranger guessing on both meets one lockout, and the owner still signs in from their own address", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push((await signIn(accounts[i % 2]!, `guess ${i}`, "127.0.0.4")).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429]);
    // Even the right password waits out the stranger's lock, from the stranger's address…
    expect((await signIn(accounts[0], OWNER.password, "127.0.0.4")).status).toBe(429);
    // …but not from the owner's, on either process.
    expect((await signIn(accounts[1], OWNER.password, "127.0.0.5")).status).toBe(200);
    expect((await signIn(accounts[0], OWNER.password, "127.0.0.5")).status).toBe(200);
  });

  it("a flood from one person's sockets on both processes meets one budget", async () => {
    const sockets = [await accounts[0].client(session), await accounts[1].client(session)];
    const acks = await Promise.all(Array.from({ length: 30 }, (_, i) => request(sockets[i % 2]!, "app:info", {})));
    expect(acks.filter((a) => a.ok)).toHaveLength(20);
    const refused = acks.filter((a) => !a.ok);
    expect(refused).toHaveLength(10);
    expect(refused[0]).toMatchObject({ code: "rate_limited", message: expect.stringMatching(/slow down/) });
    for (const socket of sockets) socket.disconnect();
  });
});

describe("with Redis gone", () => {
  it("each process still throttles on its own, and answers without waiting for Redis", async () => {
    await redis.stop();
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await gateLogin(gate[0], `outage guess ${i}`, "127.0.0.6")).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
    // The other process counted nothing of it: its own budget, as without Redis.
    expect((await gateLogin(gate[1], `outage guess`, "127.0.0.6")).status).toBe(401);
    await redis.start();
  });
});
