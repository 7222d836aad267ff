import { BUILTIN_DEFINITIONS } from "@/lib/agent/definitions";
import { createAgentRuntime, type TurnInput } from "@/lib/agent/runtime";
import { initialSessionState, sessionReducer, type SessionState } from "@/lib/chat/session-state";
import type { SessionEvent } from "@/lib/contracts";
import { serializeTurn } from "@/lib/markup/serialize";
import { createDemoModel } from "@/lib/model/demo-model";
import { createWorkspaceTools } from "@/lib/tools";
import { createModels, initModels } from "@/models";
import { openConnection } from "@/server/db/connect";
import { mongoStore } from "@/server/data/store";
import { recordEvents, request, startLiveApp, type LiveClient } from "@/test/support/server/live-app";

/**
 * N sessions at once, each running one turn that spawns three subagents (demo model, real
 * workspace tools), each watched by its own socket client. Checks that no event is lost
 * or duplicated (every client's final markup equals the stored one) and measures events
 * per second, relay latency from publish to client, and memory before, at peak and after.
 *
 * Server and clients share this process, so one clock times both ends of every event.
 */

export const LOAD_PROMPT = "Investigate the open bugs, the release plan and the changelog";

export interface LoadOptions {
  sessions: number;
  mongoUri: string;
  chunkDelayMs?: number;
  workspaceDir?: string;
  /**
   * One more identity floods while the others chat: as many sockets and chats as it may
   * open, turns in as many chats as it may run, and a stream of commands on every socket.
   */
  noisyNeighbour?: boolean;
}

/** What the flooding identity managed, and what it was refused. */
export interface NoisyReport {
  sockets: number;
  socketsRefused: number;
  chats: number;
  chatsRefused: number;
  turns: number;
  turnsRefused: number;
  commands: number;
  /** Commands refused by the per-person (or per-connection) rate limit. */
  rateLimited: number;
  /** How long it flooded, in seconds: what its accepted commands are held to (`NOISY_RATE_LIMIT`). */
  seconds: number;
}

/**
 * The per-person command budget while a neighbour floods (the quiet sessions send a few
 * commands each). Fixed windows: at most `burst` accepted per window of a second; the
 * neighbour's closing salvo overruns it on any machine, however slow.
 */
export const NOISY_RATE_LIMIT = { burst: 1000, perSecond: 1000 };
/** Commands the neighbour sends at once as it stops, all in flight together: three budgets' worth. */
const SALVO = 3 * NOISY_RATE_LIMIT.burst;

export interface LoadReport {
  sessions: number;
  subagentsPerTurn: number[];
  events: number;
  seconds: number;
  eventsPerSecond: number;
  latencyMs: { p50: number; p99: number; max: number };
  lost: number;
  duplicated: number;
  mismatchedSessions: string[];
  memoryMB: { baseline: number; peak: number; after: number };
  noisy?: NoisyReport;
}

const heapMB = () => process.memoryUsage().heapUsed / 1024 / 1024;
const collect = () => (globalThis as { gc?: () => void }).gc?.();

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export async function runLoad(options: LoadOptions): Promise<LoadReport> {
  const connection = await openConnection(options.mongoUri);
  const models = createModels(connection);
  await initModels(models);
  const store = mongoStore(models);
  const runtime = createAgentRuntime({
    model: createDemoModel({ chunkDelayMs: options.chunkDelayMs ?? 5 }),
    tools: createWorkspaceTools(),
    definitions: [...BUILTIN_DEFINITIONS],
    workspaceDir: options.workspaceDir ?? `${process.cwd()}/workspace`,
    limits: {
      maxSpawnDepth: 3,
      maxChildrenPerAgent: 5,
      maxResultTokens: 4000,
      subagentTimeoutMs: 120_000,
      maxSteps: 10,
      contextTokens: 100_000,
      resultFooter: true,
      turnTimeoutMs: 600_000,
    },
  });

  // The k-th event a turn publishes is the k-th its watcher receives (one ordered socket).
  const publishedAt = new Map<string, number[]>();
  const runner = {
    startTurn(input: TurnInput) {
      const stamps: number[] = [];
      publishedAt.set(input.turnId, stamps);
      return runtime.startTurn({
        ...input,
        publish: (event) => {
          stamps.push(performance.now());
          input.publish(event);
        },
      });
    },
  };
  const live = await startLiveApp({
    runner,
    store,
    appInfo: { modelLabel: "demo", demo: true, passwordProtected: false },
    rateLimit: NOISY_RATE_LIMIT,
    log: { info: () => undefined, warn: (m, meta) => console.warn(m, meta ?? ""), error: (m, meta) => console.error(m, meta ?? "") },
  });
  const { app } = live;

  const clients: { socket: LiveClient; sessionId: string; state: SessionState; received: { event: SessionEvent; at: number }[] }[] = [];
  try {
    for (let i = 0; i < options.sessions; i++) {
      const socket = await live.client(await live.newCookie());
      const created = await request(socket, "session:create", {});
      if (!created.ok) throw new Error(created.message);
      const { sessionId } = created.data;
      const client = { socket, sessionId, state: initialSessionState(sessionId), received: [] as { event: SessionEvent; at: number }[] };
      recordEvents(socket, (event) => client.received.push({ event, at: performance.now() }));
      const joined = await request(socket, "session:join", { sessionId });
      if (!joined.ok) throw new Error(joined.message);
      client.state = sessionReducer(client.state, { type: "joined", result: joined.data });
      clients.push(client);
    }

    collect();
    const baseline = heapMB();
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, heapMB())), 50);
    const neighbour = options.noisyNeighbour ? await startNoisyNeighbour(live) : undefined;
    const started = performance.now();
    await Promise.all(clients.map((c) => request(c.socket, "turn:send", { sessionId: c.sessionId, text: LOAD_PROMPT }, 30_000)));
    const deadline = Date.now() + 10 * 60_000;
    while (!clients.every((c) => c.received.some((r) => r.event.type === "turn:ended"))) {
      if (Date.now() > deadline) throw new Error("the turns did not end within 10 minutes");
      await new Promise((r) => setTimeout(r, 20));
    }
    const seconds = (performance.now() - started) / 1000;
    const noisy = await neighbour?.stop();
    clearInterval(sampler);
    peak = Math.max(peak, heapMB());

    // Integrity: contiguous, unique sequence numbers; live markup equals stored markup.
    let lost = 0;
    let duplicated = 0;
    const latencies: number[] = [];
    const mismatched: string[] = [];
    const subagentsPerTurn: number[] = [];
    for (const client of clients) {
      const seqs = client.received.map((r) => r.event.seq);
      duplicated += seqs.length - new Set(seqs).size;
      const first = seqs[0]!;
      const last = seqs.at(-1)!;
      lost += last - first + 1 - new Set(seqs).size;
      for (const { event } of client.received) client.state = sessionReducer(client.state, { type: "event", event });
      const turnId = client.received[0]!.event.turnId;
      const stamps = publishedAt.get(turnId) ?? [];
      client.received.forEach((r, k) => stamps[k] !== undefined && latencies.push(r.at - stamps[k]!));
      lost += Math.max(0, stamps.length - client.received.length);
      subagentsPerTurn.push(client.received.filter((r) => r.event.type === "subagent_started").length);

      const session = await app.registry.peek(client.sessionId);
      await session?.drain();
      // What a reload would show: the turns as stored in MongoDB.
      const stored = await store.loadHistory(client.sessionId);
      const liveMarkup = client.state.turns.map(serializeTurn);
      const storedMarkup = stored.map(serializeTurn);
      if (JSON.stringify(liveMarkup) !== JSON.stringify(storedMarkup) || client.state.needsResync) mismatched.push(client.sessionId);
    }

    for (const client of clients) client.socket.disconnect();
    app.registry.evictIdle(0);
    await new Promise((r) => setTimeout(r, 200));
    collect();
    const after = heapMB();
    latencies.sort((a, b) => a - b);
    const events = clients.reduce((n, c) => n + c.received.length, 0);
    return {
      sessions: options.sessions,
      subagentsPerTurn,
      events,
      seconds,
      eventsPerSecond: events / seconds,
      latencyMs: { p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: latencies.at(-1) ?? 0 },
      lost,
      duplicated,
      mismatchedSessions: mismatched,
      memoryMB: { baseline, peak, after },
      ...(noisy ? { noisy } : {}),
    };
  } finally {
    await live.close();
    await connection.close();
  }
}

/**
 * The flooding identity: it opens sockets until it is refused, creates chats until it is
 * refused, starts turns in its chats until it is refused, and keeps every socket busy with
 * commands (list, create, send) until `stop`. Every refusal is counted, not thrown.
 */
async function startNoisyNeighbour(live: Awaited<ReturnType<typeof startLiveApp>>) {
  const cookie = await live.newCookie();
  const report: NoisyReport = {
    sockets: 0,
    socketsRefused: 0,
    chats: 0,
    chatsRefused: 0,
    turns: 0,
    turnsRefused: 0,
    commands: 0,
    rateLimited: 0,
    seconds: 0,
  };
  const sockets: LiveClient[] = [];
  for (let i = 0; i < 40; i++) {
    try {
      sockets.push(await live.client(cookie));
      report.sockets++;
    } catch {
      report.socketsRefused++;
    }
  }
  const started = performance.now();
  const chats: string[] = [];
  let running = true;
  const flood = sockets.map(async (socket, k) => {
    while (running) {
      report.commands++;
      const created = await request(socket, "session:create", { title: `noise ${k}` }).catch(() => undefined);
      if (created?.ok) {
        report.chats++;
        chats.push(created.data.sessionId);
      } else if (created && created.code === "limit_reached") report.chatsRefused++;
      else if (created && created.code === "rate_limited") report.rateLimited++;
      const chat = chats[k % Math.max(1, chats.length)];
      if (chat) {
        report.commands++;
        const sent = await request(socket, "turn:send", { sessionId: chat, text: LOAD_PROMPT }).catch(() => undefined);
        if (sent?.ok) report.turns++;
        else if (sent && sent.code === "limit_reached") report.turnsRefused++;
        else if (sent && sent.code === "rate_limited") report.rateLimited++;
      }
      report.commands++;
      const listed = await request(socket, "session:list", {}).catch(() => undefined);
      if (listed && !listed.ok && listed.code === "rate_limited") report.rateLimited++;
    }
  });
  return {
    async stop(): Promise<NoisyReport> {
      running = false;
      await Promise.all(flood);
      // Last, the salvo: every command in flight at once, so the budget is overrun however
      // slowly the server answers (sent at the start, it starved the flood's own turns).
      await Promise.all(
        Array.from({ length: SALVO }, async (_, i) => {
          report.commands++;
          const listed = await request(sockets[i % sockets.length]!, "session:list", {}).catch(() => undefined);
          if (listed && !listed.ok && listed.code === "rate_limited") report.rateLimited++;
        }),
      );
      report.seconds = (performance.now() - started) / 1000;
      for (const socket of sockets) socket.disconnect();
      return report;
    },
  };
}
