import type { AddressInfo } from "node:net";
import { io as connect, type Socket } from "socket.io-client";
import type { Ack, ClientToServerEvents, ServerToClientEvents, SessionEvent } from "@/lib/contracts";
import { createApp, type App, type AppOptions } from "@/server/app";

/**
 * The real server (HTTP + Socket.IO + DroneSessions) on 127.0.0.1 port 0 in this process,
 * over the mongoose connection the caller opened, with real socket.io-client connections
 * carrying the identity cookie the server handed out over HTTP. Shared by the integration
 * tests, the benchmarks and the load script (it has no test-runner dependency).
 */
export type LiveClient = Socket<ServerToClientEvents, ClientToServerEvents>;

export interface LiveApp {
  app: App;
  baseUrl: string;
  /** A new browser identity: an HTTP request to get its cookie. */
  newCookie(): Promise<string>;
  client(cookie: string): Promise<LiveClient>;
  close(): Promise<void>;
}

export async function startLiveApp(options: Pick<AppOptions, "runner" | "store"> & Partial<AppOptions>): Promise<LiveApp> {
  const app = createApp({
    secret: "live-app-secret-live-app-secret-live!!",
    appInfo: { modelLabel: "test", demo: false, passwordProtected: Boolean(options.password) },
    ...options,
  });
  await new Promise<void>((resolve) => app.httpServer.listen(0, "127.0.0.1", resolve));
  const baseUrl = `http://127.0.0.1:${(app.httpServer.address() as AddressInfo).port}`;
  const clients: LiveClient[] = [];
  return {
    app,
    baseUrl,
    async newCookie() {
      const res = await fetch(`${baseUrl}/api/health`);
      await res.arrayBuffer();
      return (res.headers.get("set-cookie") ?? "").split(";")[0]!;
    },
    async client(cookie) {
      const socket: LiveClient = connect(baseUrl, {
        transports: ["websocket"],
        extraHeaders: { cookie },
        reconnection: false,
        forceNew: true,
      });
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
    },
  };
}

/** Sends an acknowledged command and resolves with its Ack (rejects only on silence). */
export function request<K extends keyof ClientToServerEvents>(
  socket: LiveClient,
  name: K,
  input: unknown,
  timeoutMs = 10_000,
): Promise<Parameters<Parameters<ClientToServerEvents[K]>[1]>[0]> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ack for ${name} within ${timeoutMs} ms`)), timeoutMs);
    (socket.emit as unknown as (n: string, i: unknown, cb: (a: Ack<unknown>) => void) => void)(name, input, (ack) => {
      clearTimeout(timer);
      resolve(ack as never);
    });
  });
}

/** Collects every session event a client receives, in arrival order. */
export function recordEvents(socket: LiveClient, onEvent?: (event: SessionEvent) => void): SessionEvent[] {
  const events: SessionEvent[] = [];
  socket.on("agent:event", (e) => {
    events.push(e);
    onEvent?.(e);
  });
  return events;
}
