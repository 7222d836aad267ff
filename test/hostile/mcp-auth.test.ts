import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppInfo } from "@/lib/contracts";
import type { McpServerConfig } from "@/lib/mcp/config";
import { MCP_OAUTH_CALLBACK, mcpSignInRoute, SIGN_IN_ERROR_PARAM } from "@/lib/oauth/sign-in-routes";
import { scriptedModel } from "@/test/support/agent/scripted-model";
import { httpServer } from "@/test/support/mcp/servers";
import { startProtectedMcpServer, type ProtectedMcpServer } from "@/test/support/oidc/mcp-auth-servers";
import { runtimeWith, startHarness, type Harness } from "@/test/support/server/app-harness";
import { openTestDatabase, type TestDatabase } from "@/test/support/server/database";
import { createMcpManager, type McpManager } from "@/server/mcp/manager";
import { createSignInTargets } from "@/server/oauth/sign-in-targets";
import { createMcpOAuthStore } from "@/server/oauth/oauth-store";
import { createSecretBox } from "@/server/oauth/secret-box";

/**
 * Hostile authorization servers behind an MCP server that needs sign-in: the server's
 * protected resource metadata names one that answers a sign-in with metadata past every
 * bound, with no JSON, with an authorization page at a `javascript:` address, not at all,
 * or, once the person comes back, with a token answer that is garbage. Each sign-in ends
 * with an error a person can read, in bounded time, and nobody is signed in.
 */

type Mode = "huge" | "garbage" | "javascript" | "silent" | "bad-token";
let mode: Mode = "huge";
let hostile: http.Server;
let hostileUrl: string;
let db: TestDatabase;
let trap: ProtectedMcpServer;
let manager: McpManager;
let harness: Harness;

/** The authorization server's metadata, as an honest one would publish it: only `mode` makes it hostile. */
function metadata(): Record<string, unknown> {
  return {
    issuer: hostileUrl,
    authorization_endpoint: mode === "javascript" ? "javascript:alert(document.cookie)" : `${hostileUrl}/authorize`,
    token_endpoint: `${hostileUrl}/token`,
    registration_endpoint: `${hostileUrl}/register`,
    response_types_supported: ["code"],
    code_challenge_methods_supported: ["S256"],
  };
}

beforeAll(async () => {
  hostile = http.createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    if (mode === "silent") return; // never answers
    if (path.startsWith("/.well-known/")) {
      if (mode === "garbage") return void res.writeHead(200, { "content-type": "application/json" }).end("<html>not json");
      if (mode === "huge") {
        // A valid start, then 6 MB more: the reader must stop at its bound, not buffer it all.
        res.writeHead(200, { "content-type": "application/json" });
        res.write(JSON.stringify(metadata()).slice(0, -1) + ', "padding": "');
        const chunk = "x".repeat(64 * 1024);
        for (let i = 0; i < 96; i++) res.write(chunk);
        return void res.end('"}');
      }
      return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(metadata()));
    }
    if (path === "/register") {
      return void res
        .writeHead(201, { "content-type": "application/json" })
        .end(JSON.stringify({ client_id: "hostile-client", redirect_uris: ["http://127.0.0.1/cb"] }));
    }
    if (path === "/token")
      return void res.writeHead(200, { "content-type": "application/json" }).end('{"access_token": 42, "token_type": ');
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => hostile.listen(0, "127.0.0.1", resolve));
  hostileUrl = `http://127.0.0.1:${(hostile.address() as AddressInfo).port}`;

  db = await openTestDatabase("hostile-mcp-auth");
  trap = await startProtectedMcpServer(hostileUrl);
  const signInDeps = { store: createMcpOAuthStore(db.models, createSecretBox(Buffer.alloc(32, 3))), lookup: () => undefined };
  manager = createMcpManager([httpServer("trap", trap.url, { oauth: true } as Partial<McpServerConfig>)], { signIns: signInDeps });
  const appInfo = async (): Promise<AppInfo> => ({ modelLabel: "scripted", demo: false, passwordProtected: false });
  harness = await startHarness("hostile-mcp-auth", {
    runner: runtimeWith(scriptedModel(() => ({ text: "unused" }))),
    appInfo,
    signIns: createSignInTargets({ mcp: manager }, signInDeps),
  });
});
afterAll(async () => {
  await harness?.close();
  await manager?.close();
  await trap?.close();
  hostile?.closeAllConnections();
  await new Promise<void>((resolve) => (hostile ? hostile.close(() => resolve()) : resolve()));
  await db?.close();
});

async function startSignIn(cookie: string): Promise<{ status: number; authorizationUrl?: string | null; message?: string }> {
  const res = await fetch(`${harness.baseUrl}${mcpSignInRoute("trap", "sign-in")}`, {
    method: "POST",
    headers: { cookie, origin: harness.baseUrl },
  });
  const body = (await res.json()) as { authorizationUrl?: string | null; error?: { message: string } };
  return { status: res.status, authorizationUrl: body.authorizationUrl, message: body.error?.message };
}

const nobodySignedIn = async () => expect(await db.models.McpOAuth.countDocuments({ tokens: { $exists: true } })).toBe(0);

describe("hostile authorization servers of an MCP server with sign-in", () => {
  it.each([
    ["metadata past the 4 MB bound", "huge", /Signing in to MCP server "trap" failed: .*larger than 4 MB/],
    ["metadata that is not JSON", "garbage", /Signing in to MCP server "trap" failed: a server's answer was not JSON$/],
    [
      "an authorization page at a javascript: address",
      "javascript",
      /Signing in to MCP server "trap" failed: a server answered what OAuth does not allow \(authorization_endpoint: URL cannot use javascript:/,
    ],
  ] as const)("refuses %s with an error a person can read", async (_what, hostileMode, message) => {
    mode = hostileMode;
    const answer = await startSignIn(await harness.newCookie());
    expect(answer.status).toBeGreaterThanOrEqual(400);
    expect(answer.authorizationUrl).toBeUndefined();
    expect(answer.message).toMatch(message);
    expect(answer.message!.length).toBeLessThan(1000);
    await nobodySignedIn();
  });

  it("gives up on an authorization server that never answers, and says so", async () => {
    mode = "silent";
    const answer = await startSignIn(await harness.newCookie());
    expect(answer.status).toBeGreaterThanOrEqual(400);
    expect(answer.message).toMatch(/Signing in to MCP server "trap" failed: .*did not answer/);
    await nobodySignedIn();
  }, 60_000);

  it("sends the browser back with the reason when the token answer is garbage, and signs no one in", async () => {
    mode = "bad-token";
    const cookie = await harness.newCookie();
    const answer = await startSignIn(cookie);
    expect(answer.authorizationUrl).toMatch(new RegExp(`^${hostileUrl}/authorize\\?`));
    const state = new URL(answer.authorizationUrl!).searchParams.get("state")!;
    const back = await fetch(`${harness.baseUrl}${MCP_OAUTH_CALLBACK}?code=anything&state=${encodeURIComponent(state)}`, {
      redirect: "manual",
      headers: { cookie },
    });
    expect(back.status).toBe(303);
    const location = new URL(back.headers.get("location")!, harness.baseUrl);
    expect(location.searchParams.get(SIGN_IN_ERROR_PARAM)).toMatch(/trap/);
    await nobodySignedIn();
  });
});
