import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDemoModel } from "@/lib/model/demo-model";
import { runtimeWith, startHarness, type Harness } from "@/test/support/server/app-harness";
import { rawRequest } from "@/test/support/server/raw-request";

/** The APP_PASSWORD login throttle under concurrent guessing, from one address. */
let harness: Harness;
const PASSWORD = "the right one";

beforeAll(async () => {
  harness = await startHarness("login_throttle", { runner: runtimeWith(createDemoModel({ chunkDelayMs: 0 })), password: PASSWORD });
});
afterAll(async () => {
  await harness?.close();
});

const login = (password: string, cookie = "") =>
  fetch(`${harness.baseUrl}/api/login`, {
    method: "POST",
    headers: { "content-type": "application/json", cookie },
    body: JSON.stringify({ password }),
  });

describe("login throttle", () => {
  let knownDevice = "";

  it("a correct login marks the browser as a known device", async () => {
    const res = await login(PASSWORD);
    expect(res.status).toBe(200);
    knownDevice =
      res.headers
        .getSetCookie()
        .find((c) => c.startsWith("dlg_device="))
        ?.split(";")[0] ?? "";
    expect(knownDevice).toMatch(/^dlg_device=/);
  });

  it("120 concurrent guesses: five are checked, every other one is refused, the right one among them too", async () => {
    const RIGHT = 60;
    const guesses = Array.from({ length: 120 }, (_, i) => (i === RIGHT ? PASSWORD : `guess ${i}`));
    // Every request is in (headers sent) before any password arrives: the server must
    // decide who may try before it reads the bodies, not after.
    let release = () => {};
    const bodies = new Promise<void>((resolve) => (release = resolve));
    let answered = 0;
    const replies = guesses.map((password) =>
      rawRequest(harness.baseUrl, "/api/login", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ password }),
        bodyAfter: bodies,
      }).finally(() => answered++),
    );
    // The refusals need no body: all 115 come back while every password is still held.
    await expect.poll(() => answered, { timeout: 30_000, interval: 20 }).toBe(115);
    release();
    const statuses = (await Promise.all(replies)).map((r) => r.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(115);
    expect(statuses[RIGHT]).toBe(429);
    // Afterwards too: the right password waits out the lock.
    expect((await login(PASSWORD)).status).toBe(429);
  });

  it("the guessing does not lock out a browser that logged in before", async () => {
    expect((await login(PASSWORD, knownDevice)).status).toBe(200);
    // …which is throttled on its own if it guesses.
    for (let i = 0; i < 5; i++) expect((await login(`device guess ${i}`, knownDevice)).status).toBe(401);
    expect((await login(PASSWORD, knownDevice)).status).toBe(429);
  });

  it("a forged device cookie is just the address", async () => {
    expect((await login(PASSWORD, "dlg_device=abc.def")).status).toBe(429);
  });
});
