import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_TOKEN_ROUTES, type ApiTokenCreated } from "@/lib/contracts";
import { tokenDigest } from "@/server/accounts/tokens";
import { scriptedModel } from "@/test/support/agent/scripted-model";
import { runtimeWith, startHarness, type Harness } from "@/test/support/server/app-harness";
import { prototypePolluted } from "./hostile-server";

/**
 * The API token routes and the A2A endpoint under hostile requests: forged, oversized and
 * malformed bodies, forged and borrowed tokens (another scope, revoked, another person's
 * task). Each gets a clear refusal with the right status, never a 500 and never a secret;
 * nothing is kept; the owner is still served afterwards.
 */

let harness: Harness;
let cookie: string;
let secret: string;

interface Reply {
  status: number;
  text: string;
  json: unknown;
}

/** node:http, not fetch: the server may answer a large body before it is all sent. */
function send(method: string, path: string, headers: Record<string, string>, body?: string | Buffer): Promise<Reply> {
  const payload = body === undefined ? undefined : Buffer.isBuffer(body) ? body : Buffer.from(body, "utf8");
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      new URL(path, harness.baseUrl),
      { method, headers: { ...headers, ...(payload ? { "content-length": String(payload.length) } : {}) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let json: unknown = null;
          try {
            json = JSON.parse(text);
          } catch {
            json = null;
          }
          resolve({ status: res.statusCode ?? 0, text, json });
        });
      },
    );
    // The server may close a refused upload before reading it all.
    req.on("error", (error: NodeJS.ErrnoException) => (error.code === "EPIPE" || error.code === "ECONNRESET" ? undefined : reject(error)));
    if (payload) req.write(payload);
    req.end();
  });
}

const json = { "content-type": "application/json" };
const rpc = (method: string, params: unknown, id: unknown = 1) => JSON.stringify({ jsonrpc: "2.0", id, method, params });

beforeAll(async () => {
  harness = await startHarness("hostile_a2a", { runner: runtimeWith(scriptedModel(() => ({ text: "ok" }))), a2a: {} });
  cookie = await harness.newCookie();
  const made = await send("POST", API_TOKEN_ROUTES.list, { ...json, cookie }, JSON.stringify({ name: "real" }));
  secret = (made.json as ApiTokenCreated).secret;
});
afterAll(async () => {
  await harness?.close();
});

describe("hostile requests to the token routes", () => {
  it.each([
    { note: "an oversized body", body: JSON.stringify({ name: "x".repeat(1_000_000) }), status: 413 },
    { note: "a prototype key", body: '{"name":"a","__proto__":{"polluted":true}}', status: 400 },
    { note: "a constructor key", body: '{"name":"a","constructor":{"prototype":{"polluted":true}}}', status: 400 },
    { note: "another scope", body: '{"name":"a","scope":"admin"}', status: 400 },
    { note: "a name of the wrong type", body: '{"name":{"$gt":""}}', status: 400 },
    { note: "not JSON", body: "name=a", status: 400 },
    { note: "a JSON array", body: "[]", status: 400 },
    { note: "truncated JSON", body: '{"name":"a"', status: 400 },
  ])("refuses $note with $status and keeps nothing", async ({ body, status }) => {
    const before = await harness.models.ApiToken.countDocuments({});
    const reply = await send("POST", API_TOKEN_ROUTES.list, { ...json, cookie }, body);
    expect(reply.status).toBe(status);
    expect(reply.json).toMatchObject({ error: { code: expect.any(String), message: expect.any(String) } });
    expect(await harness.models.ApiToken.countDocuments({})).toBe(before);
  });

  it("accepts a name in any script, and refuses odd paths and methods as not found", async () => {
    const made = await send("POST", API_TOKEN_ROUTES.list, { ...json, cookie }, JSON.stringify({ name: "ビルド用 🚀 agent" }));
    expect(made.status).toBe(200);
    expect((made.json as ApiTokenCreated).token.name).toBe("ビルド用 🚀 agent");
    for (const [method, path] of [
      ["DELETE", API_TOKEN_ROUTES.list],
      ["GET", "/api/tokens/abc"],
      ["POST", "/api/tokens/..%2F..%2Fadmin/revoke"],
      ["POST", `/api/tokens/${"a".repeat(65)}/revoke`],
      ["POST", "/api/tokens/nonexistent/revoke"],
    ] as const) {
      const reply = await send(method, path, { cookie });
      expect(reply.status, `${method} ${path}`).toBe(404);
    }
  });

  it("refuses a cross-site creation and revocation", async () => {
    const created = await send("POST", API_TOKEN_ROUTES.list, { ...json, cookie, origin: "https://evil.example" }, '{"name":"a"}');
    expect(created.status).toBe(401);
    const list = await send("GET", API_TOKEN_ROUTES.list, { cookie });
    const id = (list.json as { tokens: { id: string }[] }).tokens[0]!.id;
    const revoked = await send("POST", API_TOKEN_ROUTES.revoke(id), { cookie, "sec-fetch-site": "cross-site" });
    expect(revoked.status).toBe(401);
  });
});

describe("hostile requests to the A2A endpoint", () => {
  const unauthorized = (reply: Reply) => {
    expect(reply.status).toBe(401);
    expect(reply.json).toMatchObject({ jsonrpc: "2.0", error: { code: -32001 } });
    expect(reply.text).not.toContain(secret);
  };

  it("refuses forged, malformed and borrowed tokens before reading the body", async () => {
    const otherScope = `dlg_${"b".repeat(43)}`;
    await harness.models.ApiToken.collection.insertOne({
      _id: tokenDigest(otherScope) as never,
      tokenId: "other-scope",
      ownerId: "someone",
      name: "other",
      scope: "admin",
      createdAt: new Date(),
      lastUsedAt: null,
      revokedAt: null,
    });
    const revokedSecret = ((await send("POST", API_TOKEN_ROUTES.list, { ...json, cookie }, '{"name":"gone"}')).json as ApiTokenCreated)
      .secret;
    const list = await send("GET", API_TOKEN_ROUTES.list, { cookie });
    const gone = (list.json as { tokens: { id: string; name: string }[] }).tokens.find((t) => t.name === "gone")!;
    await send("POST", API_TOKEN_ROUTES.revoke(gone.id), { cookie });
    for (const authorization of [
      "",
      "Bearer",
      "Bearer ",
      `Basic ${Buffer.from(`user:${secret}`).toString("base64")}`,
      `Bearer ${secret} ${secret}`,
      `Bearer ${secret.toUpperCase()}`,
      `Bearer ${otherScope}`,
      `Bearer ${revokedSecret}`,
      `Bearer dlg_${"a".repeat(43)}`,
      `Bearer ${tokenDigest(secret)}`,
      `Bearer dlg_${"a".repeat(8000)}`,
    ]) {
      unauthorized(await send("POST", "/a2a/jsonrpc", { ...json, authorization }, rpc("tasks/get", { id: "x" })));
    }
    // A cookie of the owner is no token.
    unauthorized(await send("POST", "/a2a/jsonrpc", { ...json, cookie }, rpc("tasks/get", { id: "x" })));
  });

  it("answers oversized and malformed bodies with a JSON-RPC error, never a 500", async () => {
    const authorization = `Bearer ${secret}`;
    const big = await send("POST", "/a2a/jsonrpc", { ...json, authorization }, rpc("message/send", { text: "x".repeat(400_000) }));
    expect(big.status).toBe(413);
    expect(big.json).toMatchObject({ jsonrpc: "2.0", error: { code: -32700 } });
    for (const body of [
      "{not json",
      "[1,2,3]",
      "null",
      '"text"',
      '{"jsonrpc":"2.0"}',
      rpc("no/such/method", {}),
      rpc("message/send", null),
      rpc("message/send", { message: { parts: "nope" } }),
      rpc("tasks/get", { id: { $ne: null } }),
      '{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"x","__proto__":{"polluted":true}}}',
    ]) {
      const reply = await send("POST", "/a2a/jsonrpc", { ...json, authorization }, body);
      expect(reply.status, body).toBeLessThan(500);
      expect(reply.json, body).toMatchObject({ jsonrpc: "2.0", error: { code: expect.any(Number) } });
    }
    const wrongMethod = await send("GET", "/a2a/jsonrpc", { authorization });
    expect(wrongMethod.status).toBe(405);
  });

  it("still serves the owner, stored nothing from the refused requests, and polluted no prototype", async () => {
    expect(await harness.models.A2ATask.countDocuments({})).toBe(0);
    const list = await send("GET", API_TOKEN_ROUTES.list, { cookie });
    expect(list.status).toBe(200);
    const card = await send("GET", "/.well-known/agent-card.json", {});
    expect(card.status).toBe(200);
    expect(prototypePolluted()).toEqual([]);
  });
});
