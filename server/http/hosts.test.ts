import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { io as connect } from "socket.io-client";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createDemoModel } from "@/lib/model/demo-model";
import { runtimeWith, startHarness, type Harness } from "@/test/support/server/app-harness";
import { rawRequest } from "@/test/support/server/raw-request";
import { hostAllowed, hostRules, type HostSettings } from "./hosts";

/**
 * The Host allow-list every instance has, with or without APP_PASSWORD: a page on an
 * attacker's DNS name that resolves to this machine (DNS rebinding) gets nothing.
 */
let harness: Harness;
let port: string;

/** Stands in for Next: pages are cached by a CDN for a year unless told otherwise. */
function fakeNext(_req: IncomingMessage, res: ServerResponse): void {
  res.setHeader("cache-control", "s-maxage=31536000");
  res.setHeader("content-type", "text/html");
  res.end("<!doctype html><title>page</title>");
}

beforeAll(async () => {
  harness = await startHarness("hosts", { runner: runtimeWith(createDemoModel({ chunkDelayMs: 0 })), pageHandler: fakeNext });
  port = new URL(harness.baseUrl).port;
});
afterAll(async () => {
  await harness?.close();
});

describe("Host allow-list (DNS rebinding)", () => {
  it.each(["/", "/api/health", "/c/abc"])("refuses %s asked for under a foreign name, before any cookie", async (path) => {
    const res = await rawRequest(harness.baseUrl, path, { headers: { host: `rebind.attacker.example:${port}` } });
    expect(res.status).toBe(421);
    expect(res.headers["set-cookie"]).toBeUndefined();
    expect(res.body).toMatch(/host/i);
    expect(res.body.length).toBeLessThan(200);
  });

  it("refuses a request with no Host at all", async () => {
    const res = await rawRequest(harness.baseUrl, "/api/health", { noHost: true });
    // Node itself answers 400 to HTTP/1.1 without Host; the allow-list refuses it either way.
    expect([400, 421]).toContain(res.status);
    expect(res.headers["set-cookie"]).toBeUndefined();
  });

  it.each([`127.0.0.1:${"PORT"}`, "localhost:PORT", "localhost", "[::1]:PORT", "LOCALHOST:PORT"])(
    "serves the loopback name %s",
    async (host) => {
      const res = await rawRequest(harness.baseUrl, "/api/health", { headers: { host: host.replace("PORT", port) } });
      expect(res.status).toBe(200);
    },
  );

  it("refuses the socket handshake under a foreign name", async () => {
    const cookie = await harness.newCookie();
    const socket = connect(harness.baseUrl, {
      transports: ["websocket"],
      extraHeaders: { cookie, host: `rebind.attacker.example:${port}` },
      reconnection: false,
      forceNew: true,
    });
    const outcome = await new Promise<string>((resolve) => {
      socket.once("connect", () => resolve("connected"));
      socket.once("connect_error", () => resolve("refused"));
    });
    socket.disconnect();
    expect(outcome).toBe("refused");
  });
});

describe("hostRules", () => {
  const allowed = (host: string | undefined, settings: Partial<HostSettings> = {}) =>
    hostAllowed(host, hostRules({ host: "127.0.0.1", allowedHosts: "", ...settings }));

  it("allows the loopback names on any port, and nothing else by default", () => {
    for (const host of ["localhost", "localhost:3000", "127.0.0.1:1", "[::1]:3000", "localhost.:3000"]) expect(allowed(host)).toBe(true);
    for (const host of [
      undefined,
      "",
      "evil.example",
      "evil.example:3000",
      "127.0.0.1.evil.example",
      "localhost@evil.example",
      "[::2]:3000",
      "0.0.0.0:3000",
    ]) {
      expect(allowed(host)).toBe(false);
    }
  });

  it("adds HOST unless it is a wildcard", () => {
    expect(allowed("192.168.1.20:3000", { host: "192.168.1.20" })).toBe(true);
    expect(allowed("[fd00::1]:3000", { host: "fd00::1" })).toBe(true);
    expect(allowed("0.0.0.0:3000", { host: "0.0.0.0" })).toBe(false);
    expect(allowed("[::]:3000", { host: "::" })).toBe(false);
  });

  it("adds ALLOWED_HOSTS, on the port given or any", () => {
    const settings = { allowedHosts: " Chat.Example.com , lan.example:8080,," };
    expect(allowed("chat.example.com", settings)).toBe(true);
    expect(allowed("chat.example.com:444", settings)).toBe(true);
    expect(allowed("lan.example:8080", settings)).toBe(true);
    expect(allowed("lan.example:8081", settings)).toBe(false);
    expect(allowed("lan.example", settings)).toBe(false);
  });

  it("adds the host of PUBLIC_URL", () => {
    expect(allowed("chat.example.com", { publicUrl: "https://chat.example.com/" })).toBe(true);
    expect(allowed("chat.example.com:8443", { publicUrl: "https://chat.example.com:8443" })).toBe(true);
    expect(allowed("chat.example.com", { publicUrl: "https://chat.example.com:8443" })).toBe(false);
  });
});
