import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACCOUNT_ROUTES } from "@/lib/contracts/account";
import { createDemoModel } from "@/lib/model/demo-model";
import { scriptedModel } from "@/test/support/agent/scripted-model";
import { Cluster } from "@/server/cluster/cluster";
import { mongoLeases } from "@/server/cluster/lease";
import { startTestRedis, type TestRedis } from "@/test/support/redis/redis-server";
import { runtimeWith } from "@/test/support/server/app-harness";
import { openTestDatabase, type TestDatabase } from "@/test/support/server/database";
import { request, startLiveApp, type LiveApp, type LiveClient } from "@/test/support/server/live-app";
import type { AppOptions } from "@/server/app";
import type { ChatModel } from "@/lib/model/types";

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
/** APP_PASSWORD, turns that run until stopped, two turns and four connections per login. */
let capped: [LiveApp, LiveApp];
const PASSWORD = "the right one";
const CAPPED_PASSWORD = "one login, two processes";
const OWNER = { email: "owner@example.com", password: "correct horse battery" };

/** Two apps as two processes; each runs its own runtime over `model()`. */
async function startPair(
  label: string,
  options: Partial<AppOptions>,
  model: () => ChatModel = () => createDemoModel({ chunkDelayMs: 0 }),
): Promise<[LiveApp, LiveApp]> {
  const pair: LiveApp[] = [];
  for (const name of ["a", "b"]) {
    const instanceId = `${label}-${name}`;
    const cluster = await Cluster.connect(
      { redisUrl: redis.url, instanceId, leaseMs: 10_000 },
      { leases: mongoLeases(db.models), store: db.store },
    );
    const app = await startLiveApp({
      runner: runtimeWith(model()),
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
  gate = await startPair("gate", { password: PASSWORD, loginSessions: db.models.LoginSession });
  capped = await startPair(
    "capped",
    { password: CAPPED_PASSWORD, loginSessions: db.models.LoginSession, personLimits: { chats: 100, runningTurns: 2, sockets: 4 } },
    () => scriptedModel(() => ({ text: "Working", hang: true })),
  );
  accounts = await startPair("accounts", {
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

describe("a person's caps over two processes (one APP_PASSWORD login, many identities)", () => {
  /** A new APP_PASSWORD login (from its own loopback address): its auth cookie. */
  async function login(from: string): Promise<string> {
    const res = await post(capped[0], "/api/login", { password: CAPPED_PASSWORD }, from);
    expect(res.status, res.body).toBe(200);
    return res.setCookie.find((c) => c.startsWith("dlg_auth="))!.split(";")[0]!;
  }

  /** A new identity minted under the login `auth`, on `app`: its whole Cookie header. */
  async function mint(app: LiveApp, auth: string): Promise<string> {
    const res = await fetch(`${app.baseUrl}/api/health`, { headers: { cookie: auth } });
    await res.arrayBuffer();
    return `${auth}; ${
      res.headers
        .getSetCookie()
        .find((c) => c.startsWith("dlg_uid="))!
        .split(";")[0]!
    }`;
  }

  interface Chat {
    socket: LiveClient;
    sessionId: string;
  }

  /** A socket of a fresh identity of `auth` on `app`, with a chat of its own. */
  async function chatOn(app: LiveApp, auth: string): Promise<Chat> {
    const socket = await app.client(await mint(app, auth));
    const created = await request(socket, "session:create", {});
    if (!created.ok) throw new Error(created.message);
    return { socket, sessionId: created.data.sessionId };
  }

  const send = (chat: Chat) => request(chat.socket, "turn:send", { sessionId: chat.sessionId, text: "go" });

  it("running turns: one on each process fill the login's two, a third is refused on either, and a stopped one frees a place", async () => {
    const auth = await login("127.0.0.7");
    const [one, two, three, four]: Chat[] = [
      await chatOn(capped[0], auth),
      await chatOn(capped[1], auth),
      await chatOn(capped[0], auth),
      await chatOn(capped[1], auth),
    ] as const;
    const first = await send(one!);
    if (!first.ok) throw new Error(first.message);
    expect(await send(two!)).toMatchObject({ ok: true });
    // Each process runs one turn of the login: only counted together are they two.
    for (const chat of [three!, four!])
      expect(await send(chat)).toMatchObject({ ok: false, code: "limit_reached", message: expect.stringMatching(/2 turns running/) });
    // A refused send leaves no lease behind: stopping one turn is enough for the next to start, on the other process.
    expect(await request(one!.socket, "turn:cancel", { sessionId: one!.sessionId, turnId: first.data.turnId })).toMatchObject({ ok: true });
    await expect.poll(async () => (await send(four!)).ok, { timeout: 10_000 }).toBe(true);
    expect(await send(three!)).toMatchObject({ ok: false, code: "limit_reached" });
    for (const chat of [one!, two!, three!, four!]) chat.socket.disconnect();
  });

  it("two sends at the same moment on two processes never pass the cap together", async () => {
    const auth = await login("127.0.0.8");
    const [running, racerA, racerB, late]: Chat[] = [
      await chatOn(capped[0], auth),
      await chatOn(capped[0], auth),
      await chatOn(capped[1], auth),
      await chatOn(capped[1], auth),
    ];
    expect(await send(running!)).toMatchObject({ ok: true });
    // One place left: at most one of the two gets it (both may be refused if they meet exactly).
    const raced = await Promise.all([send(racerA!), send(racerB!)]);
    expect(raced.filter((answer) => answer.ok).length).toBeLessThanOrEqual(1);
    if (raced.some((answer) => answer.ok)) expect(await send(late!)).toMatchObject({ ok: false, code: "limit_reached" });
    for (const chat of [running!, racerA!, racerB!, late!]) chat.socket.disconnect();
  });

  it("connections: two on each process fill the login's four, a fifth is refused on either, and a closed one frees a place", async () => {
    const auth = await login("127.0.0.9");
    const open = [
      await capped[0].client(await mint(capped[0], auth)),
      await capped[0].client(await mint(capped[0], auth)),
      await capped[1].client(await mint(capped[1], auth)),
      await capped[1].client(await mint(capped[1], auth)),
    ];
    for (const app of capped)
      await expect(app.client(await mint(app, auth))).rejects.toThrow(/limit_reached: 4 connections are open for you already/);
    // Closing one on process b makes room on process a, once b has counted it out.
    open[3]!.disconnect();
    const admitted = async () => {
      try {
        open.push(await capped[0].client(await mint(capped[0], auth)));
        return true;
      } catch {
        return false;
      }
    };
    await expect.poll(admitted, { timeout: 10_000 }).toBe(true);
    for (const socket of open) socket.disconnect();
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
