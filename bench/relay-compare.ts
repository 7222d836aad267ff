import { fork, type ChildProcess } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { Server } from "socket.io";
import type { SessionEvent } from "@/lib/contracts";
import type { ChatStore } from "@/server/data/store";
import { command, startBenchApp } from "./bench-app";
import type { ClientsReply, ClientsRequest } from "./relay-clients";
import { createScriptedRunner, TOKEN_TEXT, type TurnPlan } from "./scripted-runner";
import { median, round } from "./stats";

/**
 * The relay against raw Socket.IO, in the same run, with the viewers in another process
 * (bench/relay-clients.ts). "Raw" is a bare Socket.IO server emitting the same token
 * events to a room at the same pace; "relay" is the app: the scripted runner publishes,
 * DroneSession stamps, folds, queues for MongoDB and relays. Latency is publish → arrival
 * across the two processes (clocks matched over IPC, to within half the best round trip);
 * CPU is this process's (server side) per thousand events.
 */

export interface RelayCompareCase {
  label: string;
  clients: number;
  events: number;
  /** Events per second; undefined publishes as fast as the server takes them. */
  ratePerSecond?: number;
  /** Rounds of raw and relay, alternating which goes first; each figure is the median over rounds. */
  rounds: number;
}

export const RELAY_COMPARE_FULL: RelayCompareCase[] = [
  { label: "1 client, 5,000 events/s", clients: 1, events: 15_000, ratePerSecond: 5_000, rounds: 3 },
  { label: "100 clients, 1,000 events/s", clients: 100, events: 3_000, ratePerSecond: 1_000, rounds: 3 },
  { label: "100 clients, 50,000-event burst", clients: 100, events: 50_000, rounds: 1 },
];

export const RELAY_COMPARE_SMOKE: RelayCompareCase[] = [
  { label: "1 client, 1,000 events/s", clients: 1, events: 200, ratePerSecond: 1_000, rounds: 1 },
  { label: "3 clients, 500-event burst", clients: 3, events: 500, rounds: 1 },
];

export interface RelayComparePhase {
  /** Deliveries in the round that delivered fewest (events × clients when nothing is lost). */
  deliveries: number;
  eventsPerSecond: number;
  deliveriesPerSecond: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  /** Server-side CPU (user + system) per 1,000 events published. */
  cpuMsPer1000: number;
}

export interface RelayCompareResult {
  label: string;
  clients: number;
  events: number;
  ratePerSecond?: number;
  raw: RelayComparePhase;
  relay: RelayComparePhase;
}

const BURST_CHUNK = 50;
/** 5 million deliveries (the burst) take minutes when the two cores are shared. */
const TURN_TIMEOUT_MS = 900_000;

export async function runRelayCompare(
  store: ChatStore,
  cases: readonly RelayCompareCase[],
  progress: (line: string) => void = () => undefined,
): Promise<RelayCompareResult[]> {
  const clients = await startClients();
  const raw = await startRawServer();
  const plans = new Map<string, TurnPlan>();
  const bench = await startBenchApp(
    createScriptedRunner((sessionId) => plans.get(sessionId)!),
    store,
  );
  try {
    const cookie = await bench.newCookie();
    const control = await bench.client(cookie);
    const results: RelayCompareResult[] = [];
    const runRaw = (c: RelayCompareCase) =>
      runPhase(clients, c, { url: raw.url, sessionId: "raw", mode: "raw" }, (plan) => raw.publish("raw", plan));
    const runRelay = async (c: RelayCompareCase) => {
      const { sessionId } = await bench.createSession(cookie, `Relay ${c.label}`);
      return runPhase(clients, c, { url: bench.baseUrl, sessionId, mode: "relay", cookie }, async (plan) => {
        plans.set(sessionId, plan);
        await command(control, "turn:send", { sessionId, text: "Stream the benchmark turn." });
        return async () => {
          await (await bench.app.registry.peek(sessionId))?.settled();
        };
      });
    };
    for (const c of cases) {
      const rawRounds: RelayComparePhase[] = [];
      const relayRounds: RelayComparePhase[] = [];
      // Two shared cores: what else runs moves the tails, so each side runs in turn, first and second.
      for (let round = 0; round < c.rounds; round++) {
        progress(`relay vs raw: ${c.label}, round ${round + 1} of ${c.rounds}`);
        if (round % 2 === 0) rawRounds.push(await runRaw(c));
        relayRounds.push(await runRelay(c));
        if (round % 2 === 1) rawRounds.push(await runRaw(c));
      }
      results.push({
        label: c.label,
        clients: c.clients,
        events: c.events,
        ...(c.ratePerSecond ? { ratePerSecond: c.ratePerSecond } : {}),
        raw: medianPhase(rawRounds),
        relay: medianPhase(relayRounds),
      });
    }
    control.disconnect();
    return results;
  } finally {
    await bench.close();
    await raw.close();
    clients.close();
  }
}

async function runPhase(
  clients: Clients,
  c: RelayCompareCase,
  target: { url: string; sessionId: string; mode: "raw" | "relay"; cookie?: string },
  start: (plan: TurnPlan) => Promise<() => Promise<void>>,
): Promise<RelayComparePhase> {
  const offset = await clients.clockOffset();
  await clients.ask({ type: "open", ...target, clients: c.clients, events: c.events }, "ready");
  const plan: TurnPlan = { events: c.events, ratePerSecond: c.ratePerSecond, sentAt: new Float64Array(c.events) };
  const ended = clients.next("ended", TURN_TIMEOUT_MS);
  const cpu = process.cpuUsage();
  const settle = await start(plan);
  await ended;
  const used = process.cpuUsage(cpu);
  await settle();
  const reply = await clients.ask({ type: "sentAt", sentAt: Array.from(plan.sentAt, (t) => t + offset) }, "result");
  const seconds = (reply.lastDelivery - offset - plan.sentAt[0]!) / 1000;
  return {
    deliveries: reply.deliveries,
    eventsPerSecond: round(c.events / seconds, 0),
    deliveriesPerSecond: round(reply.deliveries / seconds, 0),
    latencyP50Ms: round(reply.latencies.p50, 2),
    latencyP99Ms: round(reply.latencies.p99, 2),
    cpuMsPer1000: round(((used.user + used.system) / 1000 / c.events) * 1000, 1),
  };
}

function medianPhase(rounds: readonly RelayComparePhase[]): RelayComparePhase {
  const pick = (key: keyof RelayComparePhase) => median(rounds.map((r) => r[key]));
  return {
    deliveries: Math.min(...rounds.map((r) => r.deliveries)),
    eventsPerSecond: pick("eventsPerSecond"),
    deliveriesPerSecond: pick("deliveriesPerSecond"),
    latencyP50Ms: pick("latencyP50Ms"),
    latencyP99Ms: pick("latencyP99Ms"),
    cpuMsPer1000: pick("cpuMsPer1000"),
  };
}

/** A bare Socket.IO server: a room per name, and the scripted runner's token events emitted to it at the plan's pace. */
async function startRawServer() {
  const httpServer = createServer();
  const io = new Server(httpServer);
  io.on("connection", (socket) => {
    socket.on("join", ({ sessionId }: { sessionId: string }, ack: (a: unknown) => void) => {
      void socket.join(sessionId);
      ack({ ok: true, data: {} });
    });
  });
  await new Promise<void>((resolve) => httpServer.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}`;
  return {
    url,
    async publish(room: string, plan: TurnPlan): Promise<() => Promise<void>> {
      const turnId = "raw-turn";
      const base = { turnId, runId: "raw-run", parentRunId: null, depth: 1, sessionId: room };
      let seq = 0;
      const token = (i: number): SessionEvent => ({
        type: "subagent_data",
        ...base,
        seq: ++seq,
        data: { kind: "token", step: 0, offset: i * TOKEN_TEXT.length, text: TOKEN_TEXT },
      });
      const emit = (i: number) => {
        plan.sentAt[i] = performance.now();
        io.to(room).emit("agent:event", token(i));
      };
      await pace(plan, emit);
      io.to(room).emit("agent:event", {
        type: "turn:ended",
        turnId,
        sessionId: room,
        seq: ++seq,
        status: "completed",
        stats: { chat: { inputTokens: 0, outputTokens: 0 }, system: { inputTokens: 0, outputTokens: 0 }, steps: 1, runtimeMs: 0, cost: 0 },
        endedAt: new Date().toISOString(),
      });
      return async () => undefined;
    },
    close: () => new Promise<void>((resolve) => io.close(() => resolve())),
  };
}

/** The scripted runner's pacing (bench/scripted-runner.ts), for the raw server. */
async function pace(plan: TurnPlan, emit: (i: number) => void): Promise<void> {
  let sent = 0;
  const start = performance.now();
  while (sent < plan.events) {
    if (plan.ratePerSecond === undefined) {
      for (const end = Math.min(plan.events, sent + BURST_CHUNK); sent < end; sent++) emit(sent);
      await new Promise((r) => setImmediate(r));
    } else {
      const due = Math.min(plan.events, Math.floor(((performance.now() - start) / 1000) * plan.ratePerSecond) + 1);
      for (; sent < due; sent++) emit(sent);
      const nextAt = start + (sent / plan.ratePerSecond) * 1000;
      await new Promise((r) => setTimeout(r, Math.max(1, nextAt - performance.now())));
    }
  }
}

interface Clients {
  ask<T extends ClientsReply["type"]>(request: ClientsRequest, reply: T, timeoutMs?: number): Promise<Extract<ClientsReply, { type: T }>>;
  next<T extends ClientsReply["type"]>(reply: T, timeoutMs?: number): Promise<Extract<ClientsReply, { type: T }>>;
  /** The clients' clock minus this one's, from the IPC round trip that was quickest. */
  clockOffset(): Promise<number>;
  close(): void;
}

async function startClients(): Promise<Clients> {
  const child: ChildProcess = fork(path.resolve("bench/relay-clients.ts"), [], {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const next = <T extends ClientsReply["type"]>(type: T, timeoutMs = 60_000) =>
    new Promise<Extract<ClientsReply, { type: T }>>((resolve, reject) => {
      const timer = setTimeout(() => {
        child.off("message", onMessage);
        reject(new Error(`the relay clients sent no "${type}" within ${timeoutMs / 1000} s`));
      }, timeoutMs);
      const onMessage = (reply: ClientsReply) => {
        if (reply.type === "error") {
          clearTimeout(timer);
          child.off("message", onMessage);
          reject(new Error(`relay clients: ${reply.message}`));
        } else if (reply.type === type) {
          clearTimeout(timer);
          child.off("message", onMessage);
          resolve(reply as Extract<ClientsReply, { type: T }>);
        }
      };
      child.on("message", onMessage);
    });
  const ask: Clients["ask"] = (request, type, timeoutMs) => {
    const reply = next(type, timeoutMs);
    child.send(request);
    return reply;
  };
  return {
    ask,
    next,
    async clockOffset() {
      let best = { rtt: Number.POSITIVE_INFINITY, offset: 0 };
      for (let i = 0; i < 30; i++) {
        const t0 = performance.now();
        const { tc } = await ask({ type: "sync", t0 }, "sync");
        const t1 = performance.now();
        if (t1 - t0 < best.rtt) best = { rtt: t1 - t0, offset: tc - (t0 + t1) / 2 };
      }
      return best.offset;
    },
    close: () => {
      child.send({ type: "exit" } satisfies ClientsRequest);
      setTimeout(() => child.kill(), 1_000).unref();
    },
  };
}
