import type { AddressInfo } from "node:net";
import mongoose from "mongoose";
import { io as connect, type Socket } from "socket.io-client";
import { createAgentRuntime, type AgentRuntimeDeps } from "@/lib/agent/runtime";
import { BUILTIN_DEFINITIONS } from "@/lib/agent/definitions";
import type { Ack, ClientToServerEvents, ServerToClientEvents, SessionEvent } from "@/lib/contracts";
import { AGENT_EVENT_TYPES } from "@/lib/contracts";
import type { ChatModel } from "@/lib/model/types";
import { createWorkspaceTools } from "@/lib/tools";
import { createApp, type App, type AppOptions } from "@/server/app";
import type { TurnRunner } from "@/server/sessions/turn-runner";
import { testDatabaseUri } from "./database";

/**
 * The real server for integration tests: real HTTP on 127.0.0.1 port 0, real Socket.IO,
 * the real database server (a fresh database per harness), the real agent runtime with
 * whatever model the test gives it. Clients are real socket.io-client connections that
 * carry the identity cookie the server handed them over HTTP.
 */
export type TestClient = Socket<ServerToClientEvents, ClientToServerEvents>;

export interface Harness {
  app: App;
  baseUrl: string;
  /** A new browser identity: an HTTP request to get its cookie. */
  newCookie(): Promise<string>;
  client(cookie: string): Promise<TestClient>;
  close(): Promise<void>;
}

export function runtimeWith(model: ChatModel, overrides: Partial<AgentRuntimeDeps> = {}): TurnRunner {
  return createAgentRuntime({
    model,
    tools: createWorkspaceTools(),
    definitions: [...BUILTIN_DEFINITIONS],
    workspaceDir: process.cwd() + "/workspace",
    limits: { maxSpawnDepth: 3, maxChildrenPerAgent: 5, maxResultTokens: 4000, subagentTimeoutMs: 30_000, maxTurns: 10, contextTokens: 100_000 },
    ...overrides,
  });
}

export async function startHarness(
  label: string,
  options: { runner: TurnRunner; mongoUri?: string } & Partial<AppOptions>,
): Promise<Harness> {
  await mongoose.connect(options.mongoUri ?? testDatabaseUri(label), { serverSelectionTimeoutMS: 5_000 });
  const app = createApp({ secret: "test-secret-test-secret-test-secret!!", appInfo: { modelLabel: "test", demo: false, passwordProtected: Boolean(options.password) }, flushMs: 20, ...options });
  await new Promise<void>((resolve) => app.httpServer.listen(0, "127.0.0.1", resolve));
  const { port } = app.httpServer.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;
  const clients: TestClient[] = [];
  return {
    app,
    baseUrl,
    async newCookie() {
      const res = await fetch(`${baseUrl}/api/health`);
      const setCookie = res.headers.get("set-cookie") ?? "";
      return setCookie.split(";")[0]!;
    },
    async client(cookie) {
      const socket: TestClient = connect(baseUrl, { transports: ["websocket"], extraHeaders: { cookie }, reconnection: false, forceNew: true });
      clients.push(socket);
      await new Promise<void>((resolve, reject) => {
        socket.once("connect", () => resolve());
        socket.once("connect_error", reject);
      });
      return socket;
    },
    async close() {
      for (const c of clients) c.disconnect();
      await app.close();
      await mongoose.connection.dropDatabase().catch(() => undefined);
      await mongoose.disconnect();
    },
  };
}

/** A new person with a new chat: their cookie, a connected socket and the session id. */
export async function openSession(harness: Harness): Promise<{ cookie: string; socket: TestClient; sessionId: string }> {
  const cookie = await harness.newCookie();
  const socket = await harness.client(cookie);
  const created = await request(socket, "session:create", {});
  if (!created.ok) throw new Error(created.message);
  return { cookie, socket, sessionId: created.data.sessionId };
}

/** Sends an acknowledged command and resolves with its Ack. */
export function request<K extends keyof ClientToServerEvents>(
  socket: TestClient,
  name: K,
  input: unknown,
): Promise<Parameters<Parameters<ClientToServerEvents[K]>[1]>[0]> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ack for ${name}`)), 10_000);
    (socket.emit as unknown as (n: string, i: unknown, cb: (a: Ack<unknown>) => void) => void)(name, input, (ack) => {
      clearTimeout(timer);
      resolve(ack as never);
    });
  });
}

/** Collects every session event a client receives, in arrival order. */
export function recordEvents(socket: TestClient): SessionEvent[] {
  const events: SessionEvent[] = [];
  for (const type of AGENT_EVENT_TYPES) {
    (socket.on as unknown as (n: string, fn: (e: SessionEvent) => void) => void)(type, (e) => events.push(e));
  }
  return events;
}

export async function waitFor(predicate: () => boolean, timeoutMs = 10_000, what = "condition"): Promise<void> {
  const start = Date.now();
  while (!predicate()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
