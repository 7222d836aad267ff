import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDemoModel } from "@/lib/model/demo-model";
import { request, runtimeWith } from "@/test/support/server/app-harness";
import { openTestDatabase, type TestDatabase } from "@/test/support/server/database";
import { startLiveApp, type LiveApp } from "@/test/support/server/live-app";

/**
 * APP_PASSWORD behind a proxy that does not pin a browser to one process: two app
 * processes on one database, each request to whichever. A login made on one holds on the
 * other; a logout on one ends it on the other at once.
 */
const PASSWORD = "two rivers meet";
let db: TestDatabase;
let a: LiveApp;
let b: LiveApp;

beforeAll(async () => {
  db = await openTestDatabase("login_processes");
  const start = () =>
    startLiveApp({
      store: db.store,
      runner: runtimeWith(createDemoModel({ chunkDelayMs: 0 })),
      password: PASSWORD,
      loginSessions: db.models.LoginSession,
    });
  [a, b] = [await start(), await start()];
});
afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
  await db?.close();
});

const post = (app: LiveApp, path: string, body: unknown, cookie = "") =>
  fetch(`${app.baseUrl}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: app.baseUrl, ...(cookie ? { cookie } : {}) },
    body: JSON.stringify(body),
  });
const cookieOf = (res: Response, name: string) => (res.headers.getSetCookie().find((c) => c.startsWith(`${name}=`)) ?? "").split(";")[0]!;
const page = (app: LiveApp, cookie: string) => fetch(`${app.baseUrl}/c/abc`, { headers: { cookie }, redirect: "manual" });
const api = (app: LiveApp, cookie: string) => fetch(`${app.baseUrl}/api/sessions/abc/tool-calls/c1`, { headers: { cookie } });

describe("APP_PASSWORD across processes", () => {
  it("a login on one process holds on the other; a logout on one ends it on both at once", async () => {
    const login = await post(a, "/api/login", { password: PASSWORD });
    expect(login.status).toBe(200);
    const auth = cookieOf(login, "dlg_auth");
    const identity = cookieOf(await fetch(`${a.baseUrl}/api/health`, { headers: { cookie: auth } }), "dlg_uid");
    const cookie = `${auth}; ${identity}`;

    // Served by the other process: still logged in (the API answers, not 401; the page is not sent to /login).
    expect((await api(b, cookie)).status).toBe(404);
    expect((await page(b, cookie)).status).toBe(404);
    const socket = await b.client(cookie);
    expect(await request(socket, "session:list", {})).toMatchObject({ ok: true });

    expect((await post(a, "/api/logout", {}, cookie)).status).toBe(200);
    // No wait: the other process asks the database, which no longer has the session.
    expect((await api(b, cookie)).status).toBe(401);
    expect((await page(b, cookie)).status).toBe(303);
    await expect(b.client(cookie)).rejects.toThrow(/log in/);
    expect((await api(a, cookie)).status).toBe(401);
  });

  it("a logout sent to the other process ends the session on the one that issued it", async () => {
    const auth = cookieOf(await post(b, "/api/login", { password: PASSWORD }), "dlg_auth");
    expect((await api(a, auth)).status).toBe(404);
    expect((await post(a, "/api/logout", {}, auth)).status).toBe(200);
    expect((await api(b, auth)).status).toBe(401);
  });

  it("a process started with another password takes none of the old cookies", async () => {
    const auth = cookieOf(await post(a, "/api/login", { password: PASSWORD }), "dlg_auth");
    const changed = await startLiveApp({
      store: db.store,
      runner: runtimeWith(createDemoModel({ chunkDelayMs: 0 })),
      password: "a new password",
      loginSessions: db.models.LoginSession,
    });
    try {
      expect((await api(changed, auth)).status).toBe(401);
      expect((await api(a, auth)).status).toBe(404);
    } finally {
      await changed.close();
    }
  });
});
