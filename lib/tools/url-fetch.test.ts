import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ToolError, type ToolContext } from "./types";
import { createUrlFetchTool, type UrlFetchOptions } from "./url-fetch";

let server: Server;
let origin: string;
let port: number;
const hits: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const url = req.url ?? "/";
    hits.push(url);
    const redirect = (location: string) => res.writeHead(302, { location }).end();
    switch (url) {
      case "/page":
        res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
        return res.end(
          "<html><head><title>Tide tables</title><script>steal()</script></head><body><h1>Tides</h1><p>High water 06:12 &amp; low 12:30.</p></body></html>",
        );
      case "/latin1":
        res.writeHead(200, { "content-type": "text/plain; charset=iso-8859-1" });
        return res.end(Buffer.from([0x63, 0x61, 0x66, 0xe9]));
      case "/json":
        res.writeHead(200, { "content-type": "application/json" });
        return res.end('{"station":"Brest"}');
      case "/image":
        res.writeHead(200, { "content-type": "image/png" });
        return res.end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0]));
      case "/big":
        res.writeHead(200, { "content-type": "text/plain" });
        return res.end("tide ".repeat(100_000));
      case "/hang":
        return; // never answers
      case "/missing":
        res.writeHead(404, { "content-type": "text/plain" });
        return res.end("no such page");
      case "/redirect-same":
        return redirect("/page");
      case "/redirect-private":
        return redirect("http://10.0.0.1/admin");
      case "/redirect-metadata":
        return redirect("http://169.254.169.254/latest/meta-data/");
      case "/redirect-localhost":
        return redirect(`http://localhost:${port}/page`);
      case "/redirect-mapped":
        return redirect(`http://[::ffff:127.0.0.1]:${port}/page`);
      case "/loop":
        return redirect("/loop");
      default:
        res.writeHead(500).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
  origin = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const context = (): ToolContext => ({ workspaceDir: "/nonexistent", signal: new AbortController().signal });

function fetchWith(options: UrlFetchOptions, url: string, ctx = context()): Promise<string> {
  const tool = createUrlFetchTool(options);
  return tool.run(tool.parse({ url }), ctx);
}

const allowLocal: UrlFetchOptions = { allowHosts: ["127.0.0.1"], timeoutMs: 5_000 };

async function refusal(options: UrlFetchOptions, url: string): Promise<string> {
  const error = await fetchWith(options, url).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, `expected ${url} to be refused`).toBeInstanceOf(ToolError);
  return (error as ToolError).message;
}

describe("url_fetch against an allowlisted local server", () => {
  it("returns the readable text and title of an HTML page", async () => {
    const out = await fetchWith(allowLocal, `${origin}/page`);
    expect(out).toBe(`URL: ${origin}/page\nTitle: Tide tables\n\n# Tides\n\nHigh water 06:12 & low 12:30.`);
    expect(out).not.toContain("steal");
  });

  it("returns JSON as text and decodes a declared charset", async () => {
    expect(await fetchWith(allowLocal, `${origin}/json`)).toContain('{"station":"Brest"}');
    expect(await fetchWith(allowLocal, `${origin}/latin1`)).toContain("café");
  });

  it("follows a redirect that stays on an allowed host", async () => {
    const out = await fetchWith(allowLocal, `${origin}/redirect-same`);
    expect(out).toContain(`URL: ${origin}/page`);
    expect(out).toContain("High water");
  });

  it("cuts a body larger than maxBytes and says so", async () => {
    const out = await fetchWith({ ...allowLocal, maxBytes: 1024 }, `${origin}/big`);
    expect(out).toContain("[Page cut off after 1.0 KB.]");
    expect(out.length).toBeLessThan(1300);
  });

  it("gives up on a server that does not answer within the time cap", async () => {
    expect(await refusal({ ...allowLocal, timeoutMs: 300 }, `${origin}/hang`)).toMatch(/did not answer within 0.3 s/);
  });

  it("reports cancellation", async () => {
    const controller = new AbortController();
    const pending = fetchWith(allowLocal, `${origin}/hang`, { workspaceDir: "/", signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await expect(pending).rejects.toThrow(/cancelled/);
  });

  it("refuses binary content, error statuses and redirect loops", async () => {
    expect(await refusal(allowLocal, `${origin}/image`)).toMatch(/image\/png, not text/);
    expect(await refusal(allowLocal, `${origin}/missing`)).toMatch(/HTTP 404/);
    expect(await refusal(allowLocal, `${origin}/loop`)).toMatch(/redirected more than 5 times/);
  });
});

describe("url_fetch refusals (no traffic leaves 127.0.0.1)", () => {
  it("refuses 127.0.0.1 when it is not allowlisted, before connecting", async () => {
    const before = hits.length;
    expect(await refusal({}, `${origin}/page`)).toMatch(/127\.0\.0\.1 is a loopback address/);
    expect(await refusal({}, `http://2130706433:${port}/page`)).toMatch(/loopback/);
    expect(hits.length).toBe(before);
  });

  it.each([
    ["http://10.0.0.1/", /10\.0\.0\.1 is a private address/],
    ["http://192.168.1.1/", /private/],
    ["http://172.16.5.4/", /private/],
    ["http://169.254.169.254/latest/meta-data/", /link-local/],
    ["http://0.0.0.0/", /unspecified/],
    ["http://[::1]/", /loopback/],
    ["http://[fe80::1]/", /link-local/],
    ["http://[fd00::1]/", /unique-local/],
  ])("refuses %s", async (url, reason) => {
    expect(await refusal(allowLocal, url)).toMatch(reason);
  });

  it("refuses IPv4-mapped IPv6 loopback even when 127.0.0.1 is allowlisted", async () => {
    const before = hits.length;
    expect(await refusal(allowLocal, `http://[::ffff:127.0.0.1]:${port}/page`)).toMatch(/IPv4-mapped a loopback/);
    expect(hits.length).toBe(before);
  });

  it("refuses a name that resolves to loopback", async () => {
    const before = hits.length;
    expect(await refusal(allowLocal, `http://localhost:${port}/page`)).toMatch(/localhost resolves to .*loopback/);
    expect(hits.length).toBe(before);
  });

  it.each([
    ["/redirect-private", /redirect to http:\/\/10\.0\.0\.1\/admin: 10\.0\.0\.1 is a private address/],
    ["/redirect-metadata", /redirect to http:\/\/169\.254\.169\.254.*link-local/],
    ["/redirect-localhost", /redirect to http:\/\/localhost:\d+\/page: localhost resolves to/],
    ["/redirect-mapped", /redirect to .*IPv4-mapped/],
  ])("refuses a redirect from the allowlisted server: %s", async (route, reason) => {
    const before = hits.length;
    expect(await refusal(allowLocal, `${origin}${route}`)).toMatch(reason);
    // Only the allowlisted first hop reached the server.
    expect(hits.slice(before)).toEqual([route]);
  });

  it("refuses non-http schemes and credentials in URLs", async () => {
    expect(await refusal(allowLocal, "file:///etc/passwd")).toMatch(/Only http and https/);
    expect(await refusal(allowLocal, `http://user:pw@127.0.0.1:${port}/page`)).toMatch(/user name or password/);
    expect(await refusal(allowLocal, "not a url")).toMatch(/not a valid URL/);
  });
});
