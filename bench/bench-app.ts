import type { AddressInfo } from "node:net";
import { io as connect, type Socket } from "socket.io-client";
import type { Ack, ClientToServerEvents, ServerToClientEvents, SessionSummary } from "@/lib/contracts";
import { createApp, type App } from "@/server/app";
import type { TurnRunner } from "@/server/sessions/turn-runner";

/**
 * The real server (HTTP + Socket.IO + DroneSessions) on 127.0.0.1 port 0, in this
 * process, over the mongoose connection the benchmark opened. Like the test harness,
 * but without vitest's `inject`, so it also runs under plain `tsx`.
 */
export type BenchClient = Socket<ServerToClientEvents, ClientToServerEvents>;

export const BENCH_SECRET = "bench-secret-bench-secret-bench-secret!!";

export interface BenchApp {
  app: App;
  baseUrl: string;
  newCookie(): Promise<string>;
  createSession(cookie: string, title?: string): Promise<SessionSummary>;
  client(cookie: string): Promise<BenchClient>;
  close(): Promise<void>;
}

export async function startBenchApp(runner: TurnRunner): Promise<BenchApp> {
  const app = createApp({
    secret: BENCH_SECRET,
    runner,
    appInfo: { modelLabel: "bench", demo: false, passwordProtected: false },
    // Many clients share one cookie and send a few commands each; the real limit is per socket.
    rateLimit: { burst: 100, perSecond: 100 },
    // Warnings are the server's business; errors would make the figures meaningless.
    log: { warn: () => undefined, error: (msg, meta) => process.stderr.write(`server error: ${msg} ${JSON.stringify(meta ?? {})}\n`) },
  });
  await new Promise<void>((resolve) => app.httpServer.listen(0, "127.0.0.1", resolve));
  const { port } = app.httpServer.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;
  const clients: BenchClient[] = [];
  return {
    app,
    baseUrl,
    async newCookie() {
      const res = await fetch(`${baseUrl}/api/health`);
      await res.arrayBuffer();
      return (res.headers.get("set-cookie") ?? "").split(";")[0]!;
    },
    async createSession(cookie, title = "Bench") {
      const res = await fetch(`${baseUrl}/api/sessions`, {
        method: "POST",
        headers: { cookie, "content-type": "application/json" },
        body: JSON.stringify({ title }),
      });
      if (!res.ok) throw new Error(`creating a session failed: ${res.status} ${await res.text()}`);
      return (await res.json()) as SessionSummary;
    },
    async client(cookie) {
      const socket: BenchClient = connect(baseUrl, { transports: ["websocket"], extraHeaders: { cookie }, reconnection: false, forceNew: true });
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

/** Sends an acknowledged command; rejects on a refused ack or after `timeoutMs`. */
export function command<K extends keyof ClientToServerEvents>(
  socket: BenchClient,
  name: K,
  input: Parameters<ClientToServerEvents[K]>[0],
  timeoutMs = 30_000,
): Promise<Extract<Parameters<Parameters<ClientToServerEvents[K]>[1]>[0], { ok: true }>["data"]> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ack for ${name} within ${timeoutMs} ms`)), timeoutMs);
    (socket.emit as unknown as (n: string, i: unknown, cb: (a: Ack<unknown>) => void) => void)(name, input, (ack) => {
      clearTimeout(timer);
      if (ack.ok) resolve(ack.data as never);
      else reject(new Error(`${name} refused: ${ack.code} ${ack.message}`));
    });
  });
}
