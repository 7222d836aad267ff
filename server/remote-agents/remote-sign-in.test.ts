import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentEvent, ChatTurn, RemoteSignInInfo, SubagentProcess } from "@/lib/contracts";
import { MCP_OAUTH_CALLBACK, remoteSignInRoute } from "@/lib/oauth/sign-in-routes";
import { delegatingMaster, remoteAgentsEnv } from "@/test/support/a2a/delegating-master";
import { startTestA2AAgent, type TestA2AAgent } from "@/test/support/a2a/test-agent";
import { startScriptedOpenAIServer, type ScriptedOpenAIServer } from "@/test/support/model/scripted-openai-server";
import { MCP_SCOPE, startAuthorizationServer, type AuthorizationServer } from "@/test/support/oidc/mcp-auth-servers";
import { openSession, recordEvents, request, startHarness, waitFor, type Harness } from "@/test/support/server/app-harness";
import { openTestDatabase, type TestDatabase } from "@/test/support/server/database";
import { buildRuntime } from "@/server/agent/build-runtime";
import { createMcpOAuthStore, type McpOAuthStore } from "@/server/oauth/oauth-store";
import { createSecretBox } from "@/server/oauth/secret-box";

/**
 * Remote agents each person signs in to, through the real wiring: buildRuntime from env and
 * a definitions file, the sign-in routes of the real app, a real authorization server
 * (oidc-provider: registration, PKCE, resource indicators, JWT access tokens living three
 * seconds, refresh tokens) and real A2A agents (the SDK's server classes) that check every
 * bearer against it. Each agent's card says where to sign in in another way: an OAuth 2
 * scheme, an OpenID Connect scheme, or nothing (its endpoint's RFC 9728 metadata says).
 * The master asks for "Delegate to <agent>: <task>".
 */

let as: AuthorizationServer;
let master: ScriptedOpenAIServer;
let agents: Record<"warehouse" | "ledger" | "archive", TestA2AAgent>;
/** Agents whose cards send a sign-in where it must not go. */
let forged: Record<"trap" | "bogus", TestA2AAgent>;
let db: TestDatabase;
let dir: string;
let harness: Harness;
let store: McpOAuthStore;

beforeAll(async () => {
  as = await startAuthorizationServer({ accessTokenTtlS: 3 });
  master = await startScriptedOpenAIServer(delegatingMaster({ agent: "warehouse", answer: "The agent has answered." }));
  agents = {
    warehouse: await startTestA2AAgent({ oauth: { issuer: as.issuer, card: "oauth2", scopes: [MCP_SCOPE] } }),
    ledger: await startTestA2AAgent({ oauth: { issuer: as.issuer, card: "openIdConnect", scopes: [MCP_SCOPE] } }),
    archive: await startTestA2AAgent({ oauth: { issuer: as.issuer, card: "none", scopes: [MCP_SCOPE] } }),
  };
  const forgedCard = (openIdConnectUrl: string) => ({
    name: "Forged",
    supportedInterfaces: [{ url: agents.warehouse.url, protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
    securitySchemes: { people: { openIdConnectSecurityScheme: { openIdConnectUrl } } },
  });
  forged = {
    trap: await startTestA2AAgent({ cardOverride: forgedCard("http://169.254.169.254/.well-known/openid-configuration") }),
    bogus: await startTestA2AAgent({ cardOverride: forgedCard("javascript:alert(1)") }),
  };
  dir = await mkdtemp(path.join(tmpdir(), "delegate-remote-sign-in-"));
  const subagents = Object.entries({ ...agents, ...forged }).map(([name, agent]) => ({
    name,
    a2a: { cardUrl: agent.cardUrl, oauth: true },
  }));
  const env = await remoteAgentsEnv({ masterUrl: master.url, dir, subagents, idleMs: 5000 });
  db = await openTestDatabase("remote-sign-in-store");
  store = createMcpOAuthStore(db.models, createSecretBox(Buffer.alloc(32, 5)));
  const signInDeps = { store, lookup: () => undefined };
  const built = buildRuntime(env, { warn: () => undefined, info: () => undefined }, () => undefined, undefined, signInDeps);
  expect(built.signIns).toBeDefined();
  harness = await startHarness("remote-sign-in", { runner: built.runtime, appInfo: built.appInfo, signIns: built.signIns! });
});
afterAll(async () => {
  await harness?.close();
  await Promise.all([...Object.values(agents ?? {}), ...Object.values(forged ?? {})].map((a) => a.close()));
  await master?.close();
  await as?.close();
  await db?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const post = (cookie: string, route: string) =>
  fetch(`${harness.baseUrl}${route}`, { method: "POST", headers: { cookie, origin: harness.baseUrl } });

/** The person presses Sign in, signs in at the provider as `account`, and their browser comes back. */
async function signIn(cookie: string, agent: string, account: string): Promise<string> {
  const started = await post(cookie, remoteSignInRoute(agent, "sign-in"));
  const body = (await started.json()) as { authorizationUrl?: string; error?: { message: string } };
  if (!body.authorizationUrl) throw new Error(`no authorization address: ${JSON.stringify(body)}`);
  const back = await as.signIn(body.authorizationUrl, account, `${harness.baseUrl}${MCP_OAUTH_CALLBACK}`);
  const finished = await fetch(back, { redirect: "manual", headers: { cookie } });
  expect(finished.status).toBe(303);
  return finished.headers.get("location")!;
}

/** The claims of the access token kept for whoever signed in to `agent` as `account`. */
async function tokenOf(account: string, agent: string): Promise<{ exp: number; sub: string }> {
  const docs = await db.models.McpOAuth.find({ serverName: `a2a:${agent}`, tokens: { $exists: true } }).lean();
  for (const doc of docs) {
    const { tokens } = await store.load(doc.ownerId, doc.serverName);
    const claims = JSON.parse(Buffer.from(tokens!.access_token.split(".")[1]!, "base64url").toString()) as { exp: number; sub: string };
    if (claims.sub === account) return claims;
  }
  throw new Error(`no token of ${account} for ${agent}`);
}

async function listed(cookie: string): Promise<RemoteSignInInfo[]> {
  const socket = await harness.client(cookie);
  const info = await request(socket, "app:info", {});
  socket.disconnect();
  if (!info.ok) throw new Error(info.message);
  return info.data.remoteAgents ?? [];
}

/** One delegation in a new chat of this person's; the run as stored. */
async function delegate(cookie: string, agent: string, task: string): Promise<SubagentProcess> {
  const { socket, sessionId } = await openSession(harness, cookie);
  const events = recordEvents(socket) as AgentEvent[];
  expect((await request(socket, "session:join", { sessionId })).ok).toBe(true);
  expect((await request(socket, "turn:send", { sessionId, text: `Delegate to ${agent}: ${task}` })).ok).toBe(true);
  await waitFor(() => events.some((e) => e.type === "turn:ended"), 20_000, "turn end");
  await (await harness.app.registry.peek(sessionId))?.drain();
  socket.disconnect();
  const [turn] = (await harness.store.loadHistory(sessionId)) as [ChatTurn];
  return turn.steps[0]!.toolCalls.find((c) => c.callId === "c-remote")!.subagent!;
}

describe("a remote agent each person signs in to", () => {
  it("runs with the signed-in person's own token; someone who has not signed in is told where to, and the agent hears nothing from them", async () => {
    const alice = await harness.newCookie();
    const bob = await harness.newCookie();
    expect((await listed(alice)).find((a) => a.name === "warehouse")).toMatchObject({ signedIn: false });

    expect(await signIn(alice, "warehouse", "alice")).toBe("/?mcp_signed_in=a2a%3Awarehouse");
    expect((await listed(alice)).find((a) => a.name === "warehouse")).toMatchObject({ signedIn: true });
    expect((await listed(bob)).find((a) => a.name === "warehouse")).toMatchObject({ signedIn: false });

    const run = await delegate(alice, "warehouse", "stream the sales report");
    expect(run.status).toBe("success");
    expect(run.response).toBe("Sales rose 4 % in the third quarter.");
    expect(agents.warehouse.subjects).toContain("alice");

    const heard = agents.warehouse.messages.length;
    const refused = await delegate(bob, "warehouse", "stream the sales report");
    expect(refused.status).toBe("error");
    expect(refused.error).toMatch(
      /"warehouse" at 127\.0\.0\.1:\d+ needs you to sign in: sign in to "warehouse" from the wrench menu in the chat's header/,
    );
    expect(agents.warehouse.messages.length).toBe(heard);
    expect(agents.warehouse.subjects).not.toContain("bob");
  });

  it.each([
    ["an OpenID Connect scheme", "ledger"],
    ["no scheme (the endpoint's protected resource metadata)", "archive"],
  ] as const)("finds where to sign in from %s", async (_how, agent) => {
    const carol = await harness.newCookie();
    const started = await post(carol, remoteSignInRoute(agent, "sign-in"));
    const { authorizationUrl } = (await started.json()) as { authorizationUrl: string };
    // The token is asked for the agent's endpoint alone.
    expect(new URL(authorizationUrl).origin).toBe(as.issuer);
    expect(new URL(authorizationUrl).searchParams.get("resource")).toBe(agents[agent].url);
    expect(await signIn(carol, agent, "carol")).toBe(`/?mcp_signed_in=a2a%3A${agent}`);
    const run = await delegate(carol, agent, "stream the sales report");
    expect(run.status).toBe("success");
    expect(agents[agent].subjects).toContain("carol");
  });

  it("refreshes an expired token once and runs on; signed out, the next run is told to sign in again", async () => {
    const dan = await harness.newCookie();
    await signIn(dan, "warehouse", "dan");
    const refreshes = as.grants.filter((g) => g === "refresh_token").length;
    // The access token lives three seconds: wait until the agent would refuse it.
    const expiresAt = (await tokenOf("dan", "warehouse")).exp * 1000;
    await waitFor(() => Date.now() > expiresAt + 500, 10_000, "the access token to expire");
    const refusalsBefore = agents.warehouse.refusals.length;

    const run = await delegate(dan, "warehouse", "stream the sales report");
    expect(run.status).toBe("success");
    expect(agents.warehouse.refusals.slice(refusalsBefore).some((why) => /exp/.test(why))).toBe(true);
    expect(as.grants.filter((g) => g === "refresh_token").length).toBeGreaterThan(refreshes);
    expect(agents.warehouse.subjects.filter((s) => s === "dan").length).toBeGreaterThan(0);

    expect((await post(dan, remoteSignInRoute("warehouse", "sign-out"))).status).toBe(200);
    expect((await listed(dan)).find((a) => a.name === "warehouse")).toMatchObject({ signedIn: false });
    const after = await delegate(dan, "warehouse", "stream the sales report");
    expect(after.status).toBe("error");
    expect(after.error).toMatch(/needs you to sign in/);
  });

  it.each([
    ["at a private address", "trap", /Signing in to the remote agent "trap" failed: .*169\.254\.169\.254/],
    ["that is no web address", "bogus", /Signing in to the remote agent "bogus" failed: its card is not usable: .*is not an http\(s\) URL/],
  ] as const)("refuses a card whose sign-in address is %s, saying so, and stores nothing", async (_how, agent, message) => {
    const frank = await harness.newCookie();
    const res = await post(frank, remoteSignInRoute(agent, "sign-in"));
    expect(res.status).toBeGreaterThanOrEqual(400);
    const { error } = (await res.json()) as { error: { message: string } };
    expect(error.message).toMatch(message);
    expect(error.message.length).toBeLessThan(400);
    expect(await db.models.McpOAuth.countDocuments({ serverName: `a2a:${agent}` })).toBe(0);
  });

  it("refuses an unknown agent, one nobody signs in to, a cross-site sign-in and a GET", async () => {
    const erin = await harness.newCookie();
    const unknown = await post(erin, remoteSignInRoute("nosuch", "sign-in"));
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { message: string } }).error.message).toMatch(/No remote agent "nosuch"/);
    const crossSite = await fetch(`${harness.baseUrl}${remoteSignInRoute("warehouse", "sign-in")}`, {
      method: "POST",
      headers: { cookie: erin, origin: "https://evil.example" },
    });
    expect(crossSite.status).toBe(401);
    expect((await fetch(`${harness.baseUrl}${remoteSignInRoute("warehouse", "sign-in")}`, { headers: { cookie: erin } })).status).toBe(404);
  });
});
