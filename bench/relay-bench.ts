import type { SessionEvent } from "@/lib/contracts";
import type { ChatStore } from "@/server/data/store";
import { command, startBenchApp, type BenchApp, type BenchClient } from "./bench-app";
import { createScriptedRunner, tokenIndex, type TurnPlan } from "./scripted-runner";
import { round, summarize } from "./stats";

/**
 * Benchmark 2: events from the agent runtime through the real DroneSession (sequence,
 * fold, persist, relay) and Socket.IO to real socket.io-client connections on loopback.
 * Each case runs two turns: a burst (publish as fast as the server takes them) for
 * throughput, and a paced turn at a realistic token rate for end-to-end latency, which a
 * burst would only turn into queueing delay. Clients run in this same process, so they
 * share the two cores with the server; the figures are a floor for a real deployment.
 */

export interface RelayCase {
  label: string;
  sessions: number;
  clientsPerSession: number;
  burstEvents: number;
  pacedEvents: number;
  /** Tokens per second per session in the paced turn. */
  pacedRate: number;
}

export const RELAY_FULL: RelayCase[] = [
  { label: "1 session, 1 client", sessions: 1, clientsPerSession: 1, burstEvents: 5_000, pacedEvents: 1_000, pacedRate: 500 },
  { label: "1 session, 10 clients", sessions: 1, clientsPerSession: 10, burstEvents: 5_000, pacedEvents: 1_000, pacedRate: 500 },
  // 500/s to 100 clients is 50,000 deliveries/s, at this machine's ceiling: latency there
  // is queueing. 100/s keeps the case below saturation, like the others.
  { label: "1 session, 100 clients", sessions: 1, clientsPerSession: 100, burstEvents: 2_000, pacedEvents: 500, pacedRate: 100 },
  { label: "50 sessions, 1 client each", sessions: 50, clientsPerSession: 1, burstEvents: 1_000, pacedEvents: 200, pacedRate: 100 },
];

export const RELAY_SMOKE: RelayCase[] = [
  { label: "1 session, 1 client", sessions: 1, clientsPerSession: 1, burstEvents: 20, pacedEvents: 10, pacedRate: 200 },
  { label: "1 session, 3 clients", sessions: 1, clientsPerSession: 3, burstEvents: 20, pacedEvents: 10, pacedRate: 200 },
  { label: "2 sessions, 1 client each", sessions: 2, clientsPerSession: 1, burstEvents: 20, pacedEvents: 10, pacedRate: 200 },
];

export interface RelayPhase {
  /** Token events published, over all sessions. */
  events: number;
  /** Events received, over all clients (events × clients when nothing is lost). */
  deliveries: number;
  /** Published events per second, first publish to last delivery. */
  eventsPerSecond: number;
  deliveriesPerSecond: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
}

export interface RelayResult {
  label: string;
  sessions: number;
  clients: number;
  burst: RelayPhase;
  paced: RelayPhase & { ratePerSession: number };
}

const TURN_TIMEOUT_MS = 180_000;

export async function runRelayBench(store: ChatStore, cases: readonly RelayCase[]): Promise<RelayResult[]> {
  const plans = new Map<string, TurnPlan>();
  const bench = await startBenchApp(
    createScriptedRunner((sessionId) => {
      const plan = plans.get(sessionId);
      if (!plan) throw new Error(`no plan for session ${sessionId}`);
      return plan;
    }),
    store,
  );
  try {
    const cookie = await bench.newCookie();
    const results: RelayResult[] = [];
    for (const c of cases) results.push(await runCase(bench, cookie, plans, c));
    return results;
  } finally {
    await bench.close();
  }
}

async function runCase(bench: BenchApp, cookie: string, plans: Map<string, TurnPlan>, c: RelayCase): Promise<RelayResult> {
  const rooms: { sessionId: string; clients: BenchClient[] }[] = [];
  for (let s = 0; s < c.sessions; s++) {
    const { sessionId } = await bench.createSession(cookie, `Relay ${c.label} ${s + 1}`);
    const clients = await Promise.all(Array.from({ length: c.clientsPerSession }, () => bench.client(cookie)));
    await Promise.all(clients.map((socket) => command(socket, "session:join", { sessionId })));
    rooms.push({ sessionId, clients });
  }
  const burst = await runTurn(bench, rooms, plans, c.burstEvents, undefined);
  // A moment of quiet so the burst's garbage and the database's backlog do not bill the paced turn.
  await new Promise((r) => setTimeout(r, 1_000));
  const paced = await runTurn(bench, rooms, plans, c.pacedEvents, c.pacedRate);
  for (const room of rooms) for (const socket of room.clients) socket.disconnect();
  return {
    label: c.label,
    sessions: c.sessions,
    clients: c.sessions * c.clientsPerSession,
    burst,
    paced: { ...paced, ratePerSession: c.pacedRate },
  };
}

async function runTurn(
  bench: BenchApp,
  rooms: readonly { sessionId: string; clients: BenchClient[] }[],
  plans: Map<string, TurnPlan>,
  events: number,
  ratePerSecond: number | undefined,
): Promise<RelayPhase> {
  const latencies: number[] = [];
  let deliveries = 0;
  let lastDelivery = 0;
  const ended: Promise<void>[] = [];
  const detach: (() => void)[] = [];

  for (const { sessionId, clients } of rooms) {
    const plan: TurnPlan = { events, ratePerSecond, sentAt: new Float64Array(events) };
    plans.set(sessionId, plan);
    for (const socket of clients) {
      let resolveEnded: () => void = () => undefined;
      ended.push(new Promise<void>((resolve) => (resolveEnded = resolve)));
      const onEvent = (event: SessionEvent) => {
        if (event.sessionId !== sessionId) return;
        if (event.type === "turn:ended") resolveEnded();
        if (event.type !== "subagent_data" || event.data.kind !== "token") return;
        const now = performance.now();
        latencies.push(now - plan.sentAt[tokenIndex(event.data.offset)]!);
        deliveries++;
        lastDelivery = now;
      };
      socket.on("agent:event", onEvent);
      detach.push(() => socket.off("agent:event", onEvent));
    }
  }

  await Promise.all(
    rooms.map(({ sessionId, clients }) => command(clients[0]!, "turn:send", { sessionId, text: "Stream the benchmark turn." })),
  );
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`relay turn did not end within ${TURN_TIMEOUT_MS / 1000} s`)), TURN_TIMEOUT_MS);
  });
  try {
    await Promise.race([Promise.all(ended), timeout]);
  } finally {
    clearTimeout(timer);
    for (const off of detach) off();
  }
  // The next turn starts only when this one is fully written: no overlap between cases.
  await Promise.all(rooms.map(async ({ sessionId }) => (await bench.app.registry.peek(sessionId))?.settled()));

  const firstPublish = Math.min(...rooms.map(({ sessionId }) => plans.get(sessionId)!.sentAt[0]!));
  const seconds = (lastDelivery - firstPublish) / 1000;
  const published = events * rooms.length;
  const s = summarize(latencies);
  return {
    events: published,
    deliveries,
    eventsPerSecond: round(published / seconds, 0),
    deliveriesPerSecond: round(deliveries / seconds, 0),
    latencyP50Ms: round(s.median, 2),
    latencyP99Ms: round(s.p99, 2),
  };
}
