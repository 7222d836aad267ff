import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppInfo, McpServerInfo } from "@/lib/contracts";
import type { McpServerConfig } from "@/lib/mcp/config";
import { mcpSignInRoute } from "@/lib/oauth/sign-in-routes";
import { lastUser, scriptedModel, toolResults } from "@/test/support/agent/scripted-model";
import { httpServer } from "@/test/support/mcp/servers";
import {
  startAuthorizationServer,
  startProtectedMcpServer,
  type AuthorizationServer,
  type ProtectedMcpServer,
} from "@/test/support/oidc/mcp-auth-servers";
import { openSession, recordEvents, request, runtimeWith, startHarness, waitFor, type Harness } from "@/test/support/server/app-harness";
import { openTestDatabase, type TestDatabase } from "@/test/support/server/database";
import { createMcpManager, type McpManager } from "@/server/mcp/manager";
import { createSignInTargets } from "./sign-in-targets";
import { createMcpOAuthStore } from "@/server/oauth/oauth-store";
import { createSecretBox } from "@/server/oauth/secret-box";

/**
 * The sign-in routes through the real app: a person presses Sign in, the browser goes to a
 * real authorization server (oidc-provider) and back to the callback, and from then on that
 * person's turns have the MCP server's tool — their model is offered it and its call
 * carries their token — while another person's turns are told nothing of it. The hostile
 * part: a server whose metadata names a private address for its authorization server.
 */
let db: TestDatabase;
let as: AuthorizationServer;
let vault: ProtectedMcpServer;
let trap: ProtectedMcpServer;
let manager: McpManager;
let harness: Harness;

const model = scriptedModel((req) => {
  const results = toolResults(req.messages);
  if (results.length) return { text: `Tool said: ${String(results.at(-1)!.content)}` };
  const offered = (req.tools ?? []).map((t) => t.name);
  if (lastUser(req.messages).includes("who am i") && offered.includes("vault.whoami")) {
    return { toolCalls: [{ id: "call-1", name: "vault.whoami", args: {} }] };
  }
  return { text: `No vault here; tools: ${offered.join(", ")}` };
});

beforeAll(async () => {
  db = await openTestDatabase("mcp-oauth-routes");
  as = await startAuthorizationServer({ accessTokenTtlS: 600 });
  vault = await startProtectedMcpServer(as.issuer);
  trap = await startProtectedMcpServer(as.issuer);
  const configs: McpServerConfig[] = [
    httpServer("vault", vault.url, { oauth: true, requireApproval: false } as Partial<McpServerConfig>),
    httpServer("trap", trap.url, { oauth: true } as Partial<McpServerConfig>),
  ];
  const signInDeps = { store: createMcpOAuthStore(db.models, createSecretBox(Buffer.alloc(32, 9))), lookup: () => undefined };
  manager = createMcpManager(configs, { signIns: signInDeps });
  const appInfo = async (ownerId?: string): Promise<AppInfo> => {
    if (ownerId) await manager.prepare(ownerId);
    return { modelLabel: "scripted", demo: false, passwordProtected: false, mcpServers: manager.servers(ownerId) };
  };
  harness = await startHarness("mcp-oauth-routes", {
    runner: runtimeWith(model, { tools: (f) => manager.tools(f), prepareTools: (f) => manager.prepare(f) }),
    appInfo,
    signIns: createSignInTargets({ mcp: manager }, signInDeps),
  });
});
afterAll(async () => {
  await harness?.close();
  await manager?.close();
  await Promise.all([vault?.close(), trap?.close(), as?.close()]);
  await db?.close();
});

const post = (cookie: string, path: string, origin = harness.baseUrl) =>
  fetch(`${harness.baseUrl}${path}`, { method: "POST", headers: { cookie, origin } });

async function serverInfo(cookie: string, name: string): Promise<McpServerInfo | undefined> {
  const socket = await harness.client(cookie);
  const info = await request(socket, "app:info", {});
  socket.disconnect();
  if (!info.ok) throw new Error(info.message);
  return info.data.mcpServers?.find((s) => s.name === name);
}

async function turn(cookie: string, text: string): Promise<string> {
  const { socket, sessionId } = await openSession(harness, cookie);
  // The room's events reach a socket that joined the chat.
  await request(socket, "session:join", { sessionId });
  const events = recordEvents(socket);
  const sent = await request(socket, "turn:send", { sessionId, text });
  if (!sent.ok) throw new Error(sent.message);
  await waitFor(() => events.some((e) => e.type === "turn:ended"), 20_000, "the turn's end");
  socket.disconnect();
  const last = model.requests.at(-1)!;
  return last.messages.at(-1)?.role === "tool" ? String(toolResults(last.messages).at(-1)!.content) : "";
}

describe("the MCP sign-in routes", () => {
  it("sign in → the person's turns use the tool with their token; another person's turns are told nothing of it", async () => {
    const alice = await harness.newCookie();
    const bob = await harness.newCookie();
    expect(await serverInfo(alice, "vault")).toMatchObject({ status: "needs_sign_in", signIn: true, tools: [] });

    const started = await post(alice, mcpSignInRoute("vault", "sign-in"));
    expect(started.status).toBe(200);
    const { authorizationUrl } = (await started.json()) as { authorizationUrl: string };
    expect(new URL(authorizationUrl).searchParams.get("resource")).toBe(vault.url);
    const back = await as.signIn(authorizationUrl, "alice", `${harness.baseUrl}/api/mcp/oauth/callback`);

    // Bob's browser cannot finish Alice's sign-in (and spends it).
    const stolen = await fetch(back, { redirect: "manual", headers: { cookie: bob } });
    expect(stolen.status).toBe(303);
    expect(new URL(stolen.headers.get("location")!, harness.baseUrl).searchParams.get("mcp_error")).toMatch(/someone else/);

    // Alice starts again and comes back with her own browser.
    const again = (await (await post(alice, mcpSignInRoute("vault", "sign-in"))).json()) as { authorizationUrl: string };
    const returned = await as.signIn(again.authorizationUrl, "alice", `${harness.baseUrl}/api/mcp/oauth/callback`);
    const finished = await fetch(returned, { redirect: "manual", headers: { cookie: alice } });
    expect(finished.status).toBe(303);
    expect(finished.headers.get("location")).toBe("/?mcp_signed_in=vault");
    expect(await serverInfo(alice, "vault")).toMatchObject({ status: "connected", tools: [{ name: "vault.whoami" }] });

    expect(await turn(alice, "who am i?")).toContain("You are alice.");
    expect(await serverInfo(bob, "vault")).toMatchObject({ status: "needs_sign_in", tools: [] });
    await turn(bob, "who am i?");
    expect((model.requests.at(-1)!.tools ?? []).map((t) => t.name)).not.toContain("vault.whoami");

    const out = await post(alice, mcpSignInRoute("vault", "sign-out"));
    expect(out.status).toBe(200);
    expect(await serverInfo(alice, "vault")).toMatchObject({ status: "needs_sign_in", tools: [] });
    await turn(alice, "who am i?");
    expect((model.requests.at(-1)!.tools ?? []).map((t) => t.name)).not.toContain("vault.whoami");
  });

  it("answers forged, missing, oversized and refused callbacks by sending the browser back with the reason, signing no one in", async () => {
    const alice = await harness.newCookie();
    const callback = async (query: string) => {
      const res = await fetch(`${harness.baseUrl}/api/mcp/oauth/callback${query}`, { redirect: "manual", headers: { cookie: alice } });
      expect(res.status).toBe(303);
      return new URL(res.headers.get("location")!, harness.baseUrl).searchParams.get("mcp_error") ?? "";
    };
    expect(await callback("?state=forged&code=forged")).toMatch(/unknown, was already used, expired/);
    expect(await callback(`?state=${"a".repeat(100_000).slice(0, 6_000)}&code=x`)).toMatch(/unknown/);
    expect(await callback("?code=x")).toMatch(/no code or state/);
    expect(await callback("?state[$ne]=x&code=x")).toMatch(/no code or state/);
    const refused = await callback(`?error=access_denied&error_description=${encodeURIComponent("<script>x</script>".repeat(100))}`);
    expect(refused).toMatch(/^The authorization server refused: access_denied/);
    expect(refused.length).toBeLessThan(300);
    expect(await serverInfo(alice, "vault")).toMatchObject({ status: "needs_sign_in" });
  });

  it("refuses a cross-site sign-in, an unknown server, and a GET", async () => {
    const alice = await harness.newCookie();
    expect((await post(alice, mcpSignInRoute("vault", "sign-in"), "https://evil.example")).status).toBe(401);
    const unknown = await post(alice, mcpSignInRoute("nosuch", "sign-in"));
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { message: string } }).error.message).toMatch(/No MCP server "nosuch"/);
    expect((await fetch(`${harness.baseUrl}${mcpSignInRoute("vault", "sign-in")}`, { headers: { cookie: alice } })).status).toBe(404);
  });

  it("refuses an authorization server at a private address, or metadata that redirects there, with a clear error", async () => {
    const alice = await harness.newCookie();
    trap.metadata.authorization_servers = ["http://169.254.169.254"];
    const named = await post(alice, mcpSignInRoute("trap", "sign-in"));
    const namedError = ((await named.json()) as { error: { message: string } }).error.message;
    expect(named.status).toBeGreaterThanOrEqual(400);
    expect(namedError).toMatch(/Signing in to MCP server "trap" failed: .*169\.254\.169\.254/);

    trap.metadata.authorization_servers = [as.issuer];
    trap.redirectMetadataTo = "http://169.254.169.254/latest/meta-data/";
    const redirected = await post(alice, mcpSignInRoute("trap", "sign-in"));
    const redirectedError = ((await redirected.json()) as { error: { message: string } }).error.message;
    expect(redirected.status).toBeGreaterThanOrEqual(400);
    expect(redirectedError).toMatch(/169\.254\.169\.254/);
  });
});
