import { execFile } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import { promisify } from "node:util";
import { fmt, type Table } from "./table";
import { median } from "./stats";
import { TRACING_FULL, TRACING_SMOKE, type TracingCaseFigures, type TracingSize } from "./tracing-case";

/**
 * What tracing costs. The same measurements (bench/tracing-case.ts) run in fresh processes,
 * tracing off and on in alternation (off, on / on, off / …), so a change in the machine's
 * load bills both sides alike. "On" is production's setup: the OpenTelemetry SDK with the
 * HTTP and Socket.IO instrumentations and the batch OTLP/HTTP exporter, sending to a sink
 * here on loopback that counts the spans it receives.
 */
export type TracingMode = "off" | "on";

export interface TracingRun {
  mode: TracingMode;
  figures: TracingCaseFigures;
  /** Spans the sink received from this run, by instrumentation scope (none when off). */
  spans: Record<string, number>;
  loadAverage: number;
}

export interface TracingBenchResult {
  size: "full" | "smoke";
  runs: TracingRun[];
}

export async function runTracingBench(options: {
  mongoUri: string;
  rounds: number;
  size: "full" | "smoke";
  progress?: (line: string) => void;
}): Promise<TracingBenchResult> {
  const sink = await startSpanSink();
  const runs: TracingRun[] = [];
  try {
    for (let round = 0; round < options.rounds; round++) {
      const order: TracingMode[] = round % 2 === 0 ? ["off", "on"] : ["on", "off"];
      for (const mode of order) {
        const loadAverage = os.loadavg()[0]!;
        options.progress?.(`round ${round + 1}/${options.rounds}, tracing ${mode} (load ${loadAverage.toFixed(1)})`);
        sink.take();
        const figures = await runChild(mode, options.size, options.mongoUri, sink.url);
        runs.push({ mode, figures, spans: sink.take(), loadAverage });
        options.progress?.(
          `  relay ${figures.relay.burst.eventsPerSecond} events/s, p50 ${figures.relay.paced.latencyP50Ms} ms; ` +
            `turn ${figures.turns.wallMedianMs} ms wall, ${figures.turns.cpuMedianMs} ms CPU`,
        );
      }
    }
  } finally {
    await sink.close();
  }
  return { size: options.size, runs };
}

async function runChild(mode: TracingMode, size: "full" | "smoke", mongoUri: string, sinkUrl: string): Promise<TracingCaseFigures> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("OTEL_"))) as NodeJS.ProcessEnv;
  env.MONGODB_URI = mongoUri;
  if (mode === "on") {
    env.OTEL_EXPORTER_OTLP_ENDPOINT = sinkUrl;
    // JSON, so the sink can count spans without a protobuf decoder; the work per span is alike.
    env.OTEL_EXPORTER_OTLP_PROTOCOL = "http/json";
    env.OTEL_SERVICE_NAME = "delegate-bench";
  }
  const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", "bench/tracing-child.ts", mode, size], {
    env,
    maxBuffer: 16 * 1024 * 1024,
    timeout: 15 * 60_000,
  });
  return JSON.parse(stdout.trim().split("\n").at(-1) ?? "") as TracingCaseFigures;
}

export function tracingTables(result: TracingBenchResult): Table[] {
  const size: TracingSize = result.size === "full" ? TRACING_FULL : TRACING_SMOKE;
  const side = (mode: TracingMode) => result.runs.filter((r) => r.mode === mode);
  const row = (label: string, pick: (f: TracingCaseFigures) => number, digits: number, higherIsBetter = false): string[] => {
    const off = median(side("off").map((r) => pick(r.figures)));
    const on = median(side("on").map((r) => pick(r.figures)));
    const change = ((on - off) / off) * 100;
    const cost = higherIsBetter ? -change : change;
    return [label, fmt(off, digits), fmt(on, digits), `${cost >= 0 ? "+" : ""}${fmt(cost, 1)} %`];
  };
  const { relay } = size;
  const turns = size.warmUpTurns + size.measuredTurns;
  const traced = side("on");
  const scopes = [...new Set(traced.flatMap((r) => Object.keys(r.spans)))].sort();
  return [
    {
      title: "Tracing off vs on (medians over the runs of each side)",
      headers: ["figure", "off", "on", "cost"],
      rows: [
        row(`relay burst, events/s (${relay.label})`, (f) => f.relay.burst.eventsPerSecond, 0, true),
        row(`relay paced ${relay.pacedRate}/s, p50 latency ms`, (f) => f.relay.paced.latencyP50Ms, 2),
        row(`relay paced ${relay.pacedRate}/s, p99 latency ms`, (f) => f.relay.paced.latencyP99Ms, 2),
        row("deep-dive turn, wall ms", (f) => f.turns.wallMedianMs, 0),
        row("deep-dive turn, CPU ms", (f) => f.turns.cpuMedianMs, 1),
      ],
      note:
        `Relay: ${relay.burstEvents} burst and ${relay.pacedEvents} paced token events through DroneSession and Socket.IO. ` +
        `Turns: ${size.measuredTurns} demo deep-dive turns (master → general → 2 × explore, ` +
        `${median(result.runs.map((r) => r.figures.turns.eventsPerTurn))} events each) after ${size.warmUpTurns} warm-up, a fresh chat each. ` +
        `"cost" is how much worse "on" is; a few % either way is the machine's noise.`,
    },
    {
      title: "Spans exported per traced run (median), by instrumentation scope",
      headers: ["scope", "spans", "per turn"],
      rows: scopes.map((scope) => {
        const n = median(traced.map((r) => r.spans[scope] ?? 0));
        return [scope, fmt(n), scope === TURN_SCOPE ? fmt(n / turns, 1) : ""];
      }),
      note: `"${TURN_SCOPE}" is the turn tracer (${turns} turns per run); the others are the HTTP and Socket.IO instrumentations over the whole run.`,
    },
  ];
}

/** The turn tracer's instrumentation scope (server/telemetry/sdk.ts). */
export const TURN_SCOPE = "delegate";
export const SOCKET_IO_SCOPE = "@opentelemetry/instrumentation-socket.io";

interface Sink {
  url: string;
  /** Spans received since the last call, by instrumentation scope. */
  take(): Record<string, number>;
  close(): Promise<void>;
}

/** An OTLP/HTTP JSON receiver on loopback that only counts spans. */
async function startSpanSink(): Promise<Sink> {
  let counts: Record<string, number> = {};
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (c: Buffer) => chunks.push(c));
    request.on("end", () => {
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
          resourceSpans?: { scopeSpans?: { scope?: { name?: string }; spans?: unknown[] }[] }[];
        };
        for (const resource of body.resourceSpans ?? [])
          for (const scoped of resource.scopeSpans ?? []) {
            const name = scoped.scope?.name ?? "(none)";
            counts[name] = (counts[name] ?? 0) + (scoped.spans?.length ?? 0);
          }
        response.writeHead(200, { "content-type": "application/json" }).end("{}");
      } catch {
        response.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    take() {
      const taken = counts;
      counts = {};
      return taken;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
