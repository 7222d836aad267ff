import { createServer } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { McpServerConfig } from "@/lib/mcp/config";
import type { Tool } from "@/lib/tools/types";
import { httpServer, waitFor } from "@/test/support/mcp/servers";
import {
  startAuthorizationServer,
  startProtectedMcpServer,
  type AuthorizationServer,
  type ProtectedMcpServer,
} from "@/test/support/oidc/mcp-auth-servers";
import { openTestDatabase, type TestDatabase } from "@/test/support/server/database";
import { createMcpManager, type McpManager } from "../manager";
import { createMcpOAuthStore, type McpOAuthStore } from "@/server/oauth/oauth-store";
import { createSecretBox } from "@/server/oauth/secret-box";

/**
 * A person signs in to an MCP server against a real authorization server (oidc-provider:
 * dynamic registration, PKCE, resource indicators, JWT access tokens that live two seconds,
 * refresh tokens) and a real MCP server that checks every bearer. The manager is driven as
 * the routes drive it; the browser's part at the provider is played over HTTP.
 */
const REDIRECT = "http://127.0.0.1:3999/api/mcp/oauth/callback";
const ALICE = "owner-alice";
const BOB = "owner-bob";

let db: TestDatabase;
let as: AuthorizationServer;
let mcp: ProtectedMcpServer;
let store: McpOAuthStore;
let manager: McpManager | undefined;

beforeAll(async () => {
  db = await openTestDatabase("mcp-oauth");
  as = await startAuthorizationServer({
    accessTokenTtlS: 2,
    client: { clientId: "delegate-configured", clientSecret: "configured-secret-value", redirectUri: REDIRECT },
  });
  mcp = await startProtectedMcpServer(as.issuer);
  store = createMcpOAuthStore(db.models, createSecretBox(Buffer.alloc(32, 7)));
});
afterAll(async () => {
  await mcp?.close();
  await as?.close();
  await db?.close();
});
afterEach(async () => {
  await manager?.close();
  manager = undefined;
  await db.models.McpOAuth.deleteMany({});
});

const signInServer = (): McpServerConfig => httpServer("vault", mcp.url, { oauth: true } as Partial<McpServerConfig>);
const start = () => (manager = createMcpManager([signInServer()], { signIns: { store, lookup: () => undefined } }));
const ctx = () => ({ workspaceDir: "/tmp", signal: new AbortController().signal });
const tool = (m: McpManager, owner: string): Tool | undefined => m.tools(owner).find((t) => t.spec.name === "vault.whoami");

/** The person clicks Sign in, signs in at the provider, and the browser comes back to the callback. */
async function signIn(m: McpManager, owner: string, account: string): Promise<void> {
  const started = await m.signIn(owner, "vault", REDIRECT);
  if (!started) throw new Error("expected an authorization address");
  const back = await as.signIn(started.authorizationUrl, account, REDIRECT);
  expect(back.searchParams.get("error")).toBeNull();
  await m.finishSignIn(owner, back.searchParams.get("state")!, back.searchParams.get("code")!);
}

describe("signing in to an MCP server", () => {
  it("gives the tool to the person who signed in, with their own token, and to no one else", async () => {
    const m = start();
    await m.prepare(ALICE);
    expect(m.servers(ALICE)).toEqual([expect.objectContaining({ name: "vault", status: "needs_sign_in", signIn: true })]);
    expect(tool(m, ALICE)).toBeUndefined();

    await signIn(m, ALICE, "alice");
    expect(m.servers(ALICE)[0]).toMatchObject({ status: "connected", tools: [expect.objectContaining({ name: "vault.whoami" })] });
    const reply = await tool(m, ALICE)!.run({}, ctx());
    expect(reply).toContain("You are alice.");

    // Bob has not signed in: the server needs his sign-in, and its tool is not in his list.
    await m.prepare(BOB);
    expect(m.servers(BOB)[0]).toMatchObject({ status: "needs_sign_in", tools: [] });
    expect(tool(m, BOB)).toBeUndefined();
    expect(m.tools()).toEqual([]);

    await signIn(m, BOB, "bob");
    expect(await tool(m, BOB)!.run({}, ctx())).toContain("You are bob.");
    expect(await tool(m, ALICE)!.run({}, ctx())).toContain("You are alice.");
  });

  it("keeps tokens sealed at rest and reconnects from them after a restart", async () => {
    const first = start();
    await signIn(first, ALICE, "alice");
    const doc = await db.models.McpOAuth.findOne({ ownerId: ALICE, serverName: "vault" }).lean();
    expect(doc?.tokens).toMatch(/^v1\./);
    expect(JSON.stringify(doc)).not.toMatch(/eyJ/);
    await first.close();

    const second = start();
    await second.prepare(ALICE);
    expect(await tool(second, ALICE)!.run({}, ctx())).toContain("You are alice.");
  });

  it("refreshes an expired access token, and a failed refresh asks for a sign-in again", async () => {
    const m = start();
    await signIn(m, ALICE, "alice");
    const refreshes = as.grants.filter((g) => g === "refresh_token").length;
    const stored = await store.load(ALICE, "vault");
    const expiresAt = JSON.parse(Buffer.from(stored.tokens!.access_token.split(".")[1]!, "base64url").toString()).exp * 1000;
    // The token's own expiry is the condition: the server refuses it from then on.
    await waitFor(() => Date.now() > expiresAt + 1000, "the access token to expire", 10_000);

    expect(await tool(m, ALICE)!.run({}, ctx())).toContain("You are alice.");
    expect(as.grants.filter((g) => g === "refresh_token").length).toBeGreaterThan(refreshes);
    expect(mcp.refusals.some((why) => /exp/.test(why))).toBe(true);

    // The refresh token stops working: the next refusal cannot be mended, and the person is asked to sign in.
    const broken = await store.load(ALICE, "vault");
    await store.saveTokens(ALICE, "vault", { ...broken.tokens!, access_token: "expired", refresh_token: "revoked" });
    const failed = await tool(m, ALICE)!
      .run({}, ctx())
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(String(failed)).toMatch(/vault/);
    await waitFor(() => m.servers(ALICE)[0]?.status === "needs_sign_in", "the server to need a sign-in");
    expect(tool(m, ALICE)).toBeUndefined();
  });

  it("calls made at once after the token expired share one refresh, and the person stays signed in", async () => {
    const m = start();
    await signIn(m, ALICE, "alice");
    const stored = await store.load(ALICE, "vault");
    const expiresAt = JSON.parse(Buffer.from(stored.tokens!.access_token.split(".")[1]!, "base64url").toString()).exp * 1000;
    await waitFor(() => Date.now() > expiresAt + 1000, "the access token to expire", 10_000);
    const whoami = tool(m, ALICE)!;
    const replies = await Promise.all([1, 2, 3, 4].map(() => whoami.run({}, ctx())));
    expect(replies).toEqual(Array(4).fill(expect.stringContaining("You are alice.")));
    expect(m.servers(ALICE)[0]).toMatchObject({ status: "connected" });
    expect(await tool(m, ALICE)!.run({}, ctx())).toContain("You are alice.");
  });

  it("signing out ends the person's access and forgets their tokens", async () => {
    const m = start();
    await signIn(m, ALICE, "alice");
    await signIn(m, BOB, "bob");
    await m.signOut(ALICE, "vault");
    expect(m.servers(ALICE)[0]).toMatchObject({ status: "needs_sign_in" });
    expect(tool(m, ALICE)).toBeUndefined();
    expect((await store.load(ALICE, "vault")).tokens).toBeUndefined();
    await m.prepare(ALICE);
    expect(tool(m, ALICE)).toBeUndefined();
    expect(await tool(m, BOB)!.run({}, ctx())).toContain("You are bob.");
  });

  it("another process picks up a sign-in made elsewhere, and loses access when the person signs out there", async () => {
    const here = start();
    const there = createMcpManager([signInServer()], { signIns: { store, lookup: () => undefined } });
    try {
      await there.prepare(ALICE);
      expect(there.servers(ALICE)[0]).toMatchObject({ status: "needs_sign_in" });
      await signIn(here, ALICE, "alice");
      await there.prepare(ALICE);
      expect(await tool(there, ALICE)!.run({}, ctx())).toContain("You are alice.");

      await here.signOut(ALICE, "vault");
      await expect(tool(there, ALICE)!.run({}, ctx())).rejects.toThrow(/vault/);
      await waitFor(() => there.servers(ALICE)[0]?.status === "needs_sign_in", "the other process to need a sign-in");
    } finally {
      await there.close();
    }
  });

  it("signing in from another address of the app registers again for that address", async () => {
    const m = start();
    await signIn(m, ALICE, "alice");
    await m.signOut(ALICE, "vault");
    const other = "http://localhost:3999/api/mcp/oauth/callback";
    const started = await m.signIn(BOB, "vault", other);
    const back = await as.signIn(started!.authorizationUrl, "bob", other);
    expect(back.searchParams.get("error")).toBeNull();
    await m.finishSignIn(BOB, back.searchParams.get("state")!, back.searchParams.get("code")!);
    const first = (await store.load(BOB, "vault")).client as { redirect_uris?: string[] };
    expect(first.redirect_uris).toEqual([other]);

    // The old client's refresh token is not the new client's: Bob goes through the authorization server once more.
    await signIn(m, BOB, "bob");
    expect(((await store.load(BOB, "vault")).client as { redirect_uris?: string[] }).redirect_uris).toEqual([REDIRECT]);
    expect(await tool(m, BOB)!.run({}, ctx())).toContain("You are bob.");
  });

  it("a turn waits a bounded time for a person's server that does not answer, and runs without its tools", async () => {
    const m = start();
    await signIn(m, ALICE, "alice");
    await m.close();
    // A server that takes the connection and never answers.
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(silent.address() as { port: number }).port}/mcp`;
    try {
      manager = createMcpManager([httpServer("vault", url, { oauth: true } as Partial<McpServerConfig>)], {
        signIns: { store, lookup: () => undefined, prepareWaitMs: 300 },
      });
      const started = Date.now();
      await manager.prepare(ALICE);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(manager.servers(ALICE)[0]).toMatchObject({ status: "connecting" });
      expect(tool(manager, ALICE)).toBeUndefined();
    } finally {
      await manager?.close();
      manager = undefined;
      silent.close();
    }
  });

  it("signs in with a client the operator configured, its secret read from the variable named", async () => {
    const config = httpServer("vault", mcp.url, {
      oauth: { clientId: "delegate-configured", clientSecretEnv: "VAULT_SECRET" },
    } as Partial<McpServerConfig>);
    const m = (manager = createMcpManager([config], {
      signIns: { store, lookup: (name) => (name === "VAULT_SECRET" ? "configured-secret-value" : undefined) },
    }));
    const started = await m.signIn(ALICE, "vault", REDIRECT);
    expect(new URL(started!.authorizationUrl).searchParams.get("client_id")).toBe("delegate-configured");
    await signIn(m, ALICE, "alice");
    expect(await tool(m, ALICE)!.run({}, ctx())).toContain("You are alice.");
    // Nothing was registered, and the operator's secret is not copied into the database.
    expect((await store.load(ALICE, "vault")).client).toBeUndefined();
    expect(JSON.stringify(await db.models.McpOAuth.find({}).lean())).not.toContain("configured-secret-value");
  });

  it("stops the start when a configured client's secret variable is not set", () => {
    const config = httpServer("vault", mcp.url, { oauth: { clientId: "c", clientSecretEnv: "VAULT_SECRET" } } as Partial<McpServerConfig>);
    expect(() => createMcpManager([config], { signIns: { store, lookup: () => undefined } })).toThrow(
      /MCP server "vault": oauth.clientSecretEnv names VAULT_SECRET, which is not set/,
    );
  });

  it("a state works once, only for the person who started the sign-in", async () => {
    const m = start();
    const started = await m.signIn(ALICE, "vault", REDIRECT);
    const back = await as.signIn(started!.authorizationUrl, "alice", REDIRECT);
    const [state, code] = [back.searchParams.get("state")!, back.searchParams.get("code")!];
    await expect(m.finishSignIn(BOB, state, code)).rejects.toThrow(/started by someone else/);
    // Spent by the wrong person's attempt: Alice must start again.
    await expect(m.finishSignIn(ALICE, state, code)).rejects.toThrow(/already used/);
    expect(tool(m, ALICE)).toBeUndefined();
  });
});
