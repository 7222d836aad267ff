import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDemoModel } from "@/lib/model/demo-model";
import { request, runtimeWith, startHarness, type Harness } from "@/test/support/server/app-harness";

/** APP_PASSWORD in front of pages, the HTTP API and the socket handshake. */
let harness: Harness;
const PASSWORD = "tide pools at dawn";

beforeAll(async () => {
  harness = await startHarness("login", { runner: runtimeWith(createDemoModel({ chunkDelayMs: 0 })), password: PASSWORD });
});
afterAll(async () => {
  await harness?.close();
});

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${harness.baseUrl}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
    redirect: "manual",
  });

function cookieOf(res: Response, name: string): string {
  const header = res.headers.getSetCookie().find((c) => c.startsWith(`${name}=`)) ?? "";
  return header.split(";")[0]!;
}

describe("APP_PASSWORD", () => {
  it("sends pages to the login page and refuses the API and the socket without a login", async () => {
    const page = await fetch(`${harness.baseUrl}/c/abc?x=1`, { redirect: "manual" });
    expect(page.status).toBe(303);
    expect(page.headers.get("location")).toBe(`/login?next=${encodeURIComponent("/c/abc?x=1")}`);
    const api = await fetch(`${harness.baseUrl}/api/sessions/abc/tool-calls/c1`);
    expect(api.status).toBe(401);
    expect(await api.json()).toMatchObject({ error: { code: "unauthorized" } });
    await expect(harness.client("dlg_uid=x")).rejects.toThrow(/log in/);
  });

  it("logs in with the password, then everything works; logout ends it", async () => {
    const wrong = await post("/api/login", { password: "nope" });
    expect(wrong.status).toBe(401);
    const right = await post("/api/login", { password: PASSWORD });
    expect(right.status).toBe(200);
    const auth = cookieOf(right, "dlg_auth");
    expect(auth).toMatch(/^dlg_auth=[\w-]{22}\.\d+\./);

    const first = await fetch(`${harness.baseUrl}/api/health`, { headers: { cookie: auth } });
    expect(first.status).toBe(200);
    const identity = cookieOf(first, "dlg_uid");
    const cookie = `${auth}; ${identity}`;
    const socket = await harness.client(cookie);
    expect(await request(socket, "session:list", {})).toMatchObject({ ok: true, data: [] });

    const open = await harness.client(cookie);
    const cut = new Promise<string>((resolve) => open.once("disconnect", resolve));
    const out = await post("/api/logout", {}, { cookie });
    expect(out.status).toBe(200);
    expect(out.headers.getSetCookie().join()).toMatch(/dlg_auth=;.*Max-Age=0/);
    // The browser drops what it cached of this site: the next person on it reads none of it.
    expect(out.headers.get("clear-site-data")).toBe('"cache"');

    // A copy of the cookie kept from before the logout opens nothing any more.
    expect(await cut).toBe("io server disconnect");
    expect((await fetch(`${harness.baseUrl}/api/sessions/abc/tool-calls/c1`, { headers: { cookie } })).status).toBe(401);
    expect((await fetch(`${harness.baseUrl}/`, { headers: { cookie }, redirect: "manual" })).status).toBe(303);
    await expect(harness.client(cookie)).rejects.toThrow(/log in/);
  });

  it("a second login is a session of its own: logging one out leaves the other", async () => {
    const first = cookieOf(await post("/api/login", { password: PASSWORD }), "dlg_auth");
    const second = cookieOf(await post("/api/login", { password: PASSWORD }), "dlg_auth");
    expect(first).not.toBe(second);
    expect((await post("/api/logout", {}, { cookie: first })).status).toBe(200);
    const api = (auth: string) => fetch(`${harness.baseUrl}/api/sessions/abc/tool-calls/c1`, { headers: { cookie: auth } });
    expect((await api(first)).status).toBe(401);
    expect((await api(second)).status).toBe(404);
  });

  it("throttles guessing: past five wrong passwords the next is refused with Retry-After", async () => {
    // The wrong password above still counts: a correct login does not wipe earlier guesses.
    for (let i = 0; i < 4; i++) expect((await post("/api/login", { password: `guess ${i}` })).status).toBe(401);
    const last = await post("/api/login", { password: "guess 5" });
    expect(last.status).toBe(429);
    expect(Number(last.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await last.json()).error.message).toMatch(/Too many wrong passwords/);
    // Even the right password waits out the window.
    expect((await post("/api/login", { password: PASSWORD })).status).toBe(429);
  });

  it("refuses a login posted from another site", async () => {
    const res = await post("/api/login", { password: PASSWORD }, { origin: "https://evil.example" });
    expect(res.status).toBe(401);
  });
});
