import type { Ack, ClientToServerEvents, SessionSummary } from "@/lib/contracts";
import type { ChatStore } from "@/server/data/store";
import type { TurnRunner } from "@/server/sessions/turn-runner";
import { startLiveApp, type LiveApp, type LiveClient } from "@/test/support/server/live-app";

/**
 * The real server (test/support/server/live-app.ts) as the benchmarks use it: their own secret,
 * a looser rate limit for many clients, quiet warnings, and session creation over a socket.
 */
export type BenchClient = LiveClient;

export const BENCH_SECRET = "bench-secret-bench-secret-bench-secret!!";

export interface BenchApp extends LiveApp {
  createSession(cookie: string, title?: string): Promise<SessionSummary>;
}

export async function startBenchApp(runner: TurnRunner, store: ChatStore): Promise<BenchApp> {
  const live = await startLiveApp({
    secret: BENCH_SECRET,
    runner,
    store,
    appInfo: { modelLabel: "bench", demo: false, passwordProtected: false },
    // Many clients share one cookie and send a few commands each: one identity stands for a
    // hundred viewers, so its per-person command budget is lifted too.
    rateLimit: { burst: 100, perSecond: 100 },
    personRateLimit: { burst: 100_000, perSecond: 100_000 },
    // One identity stands for a hundred viewers and fifty chats here.
    personLimits: { chats: 10_000, runningTurns: 1_000, sockets: 1_000 },
    // Warnings are the server's business; errors would make the figures meaningless.
    log: {
      info: () => undefined,
      warn: () => undefined,
      error: (msg, meta) => process.stderr.write(`server error: ${msg} ${JSON.stringify(meta ?? {})}\n`),
    },
  });
  return {
    ...live,
    async createSession(cookie, title = "Bench") {
      const socket = await live.client(cookie);
      try {
        return await command(socket, "session:create", { title });
      } finally {
        socket.disconnect();
      }
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
