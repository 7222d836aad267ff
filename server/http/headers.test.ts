import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createDemoModel } from "@/lib/model/demo-model";
import { runtimeWith, startHarness, type Harness } from "@/test/support/server/app-harness";
import { rawRequest } from "@/test/support/server/raw-request";

/** Security headers on every response, and no shared caching of a response that sets a cookie. */
let harness: Harness;

/** Stands in for Next: pages are cached by a CDN for a year unless told otherwise. */
function fakeNext(req: IncomingMessage, res: ServerResponse): void {
  // What Next would take its script nonce from.
  res.setHeader("x-seen-policy", String(req.headers["content-security-policy"]));
  res.setHeader("cache-control", "s-maxage=31536000");
  res.setHeader("content-type", "text/html");
  res.end("<!doctype html><title>page</title>");
}

beforeAll(async () => {
  harness = await startHarness("headers", { runner: runtimeWith(createDemoModel({ chunkDelayMs: 0 })), pageHandler: fakeNext });
});
afterAll(async () => {
  await harness?.close();
});

function expectHardened(headers: Record<string, string | string[] | undefined>): void {
  expect(headers["x-frame-options"]).toBe("DENY");
  expect(headers["referrer-policy"]).toBe("no-referrer");
  expect(headers["x-content-type-options"]).toBe("nosniff");
  const csp = String(headers["content-security-policy"]);
  for (const directive of [
    "frame-ancestors 'none'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "script-src 'self'",
    "worker-src 'self'",
    "manifest-src 'self'",
  ]) {
    expect(csp).toContain(directive);
  }
}

describe("security headers", () => {
  it.each(["/", "/api/health", "/api/nothing-here"])("are on %s", async (path) => {
    expectHardened((await rawRequest(harness.baseUrl, path)).headers);
  });

  it("are on the refusal of a foreign Host too", async () => {
    expectHardened((await rawRequest(harness.baseUrl, "/", { headers: { host: "rebind.attacker.example" } })).headers);
  });

  it("give each response its own script nonce, hand the same policy to the page renderer, and allow no inline script without it", async () => {
    const first = await rawRequest(harness.baseUrl, "/", { headers: { "content-security-policy": "script-src 'nonce-chosen-by-client'" } });
    const second = await rawRequest(harness.baseUrl, "/");
    const policy = String(first.headers["content-security-policy"]);
    const nonce = /'nonce-([A-Za-z0-9+/=]{22,})'/.exec(policy)?.[1];
    expect(nonce).toBeDefined();
    expect(/script-src [^;]*unsafe-inline/.test(policy)).toBe(false);
    expect(first.headers["x-seen-policy"]).toBe(policy);
    expect(String(second.headers["content-security-policy"])).not.toContain(nonce);
  });

  it("a page that sets a cookie is never cached by anyone else", async () => {
    const res = await rawRequest(harness.baseUrl, "/");
    expect(res.headers["set-cookie"]).toBeDefined();
    expect(res.headers["cache-control"]).toBe("private, no-store");
  });

  it("a page without a new cookie keeps Next's caching", async () => {
    const cookie = await harness.newCookie();
    const res = await rawRequest(harness.baseUrl, "/", { headers: { cookie } });
    expect(res.headers["set-cookie"]).toBeUndefined();
    expect(res.headers["cache-control"]).toBe("s-maxage=31536000");
  });
});

describe("the login page under APP_PASSWORD", () => {
  let gated: Harness;
  beforeAll(async () => {
    gated = await startHarness("headers_gated", {
      runner: runtimeWith(createDemoModel({ chunkDelayMs: 0 })),
      password: "pw",
      pageHandler: fakeNext,
    });
  });
  afterAll(async () => {
    await gated?.close();
  });

  it.each([
    "/login",
    "/theme-init.js",
    "/icon.svg",
    "/favicon.ico",
    "/icon-192.png",
    "/icon-512.png",
    "/apple-touch-icon.png",
    "/manifest.webmanifest",
    "/_next/static/chunks/main.js",
  ])("%s and what it loads are outside the gate", async (path) => {
    const res = await rawRequest(gated.baseUrl, path);
    expect(res.status).toBe(200);
  });

  it("the login page and the redirect to it carry the headers too", async () => {
    expectHardened((await rawRequest(gated.baseUrl, "/login")).headers);
    const redirect = await rawRequest(gated.baseUrl, "/c/abc");
    expect(redirect.status).toBe(303);
    expectHardened(redirect.headers);
  });
});
