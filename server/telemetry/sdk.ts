import { createRequire } from "node:module";
import { trace } from "@opentelemetry/api";
import type { tracing } from "@opentelemetry/sdk-node";
import type { ServerToClientEvents } from "@/lib/contracts";
import type { TurnTracer } from "@/lib/telemetry/turn-tracer";
import { tracingConfig } from "./config";
import { otelTurnTracer } from "./otel-turn-tracer";

/** Tracing as the server runs it: the runtime's tracer and the flush at shutdown. */
export interface Telemetry {
  tracer: TurnTracer;
  /** Ends the SDK: spans still queued are exported first (SIGTERM waits for it). */
  shutdown(): Promise<void>;
}

export interface StartOptions {
  /** Span processors to use instead of the exporter OTEL_TRACES_EXPORTER names (tests: an in-memory exporter). */
  spanProcessors?: tracing.SpanProcessor[];
  /** HTTP and Socket.IO server spans; default true. */
  instrument?: boolean;
}

/**
 * Starts the OpenTelemetry SDK when OTEL_* turns tracing on, else does nothing at all: the
 * SDK is not even loaded, the API stays the no-op, and the runtime gets no tracer. Only
 * traces are exported here (metrics and logs have their own paths in this app), so the
 * SDK's metric readers and log processors are set to none rather than read from OTEL_*.
 *
 * Synchronous on purpose (the SDK is required, not imported): server/index.ts starts it
 * from its first import, and an ES module's later imports are evaluated without waiting
 * for an earlier one's top-level await, so only a synchronous start is in place before
 * `http` and `socket.io` are loaded for the instrumentations to patch.
 */
export function startTelemetry(env: Record<string, string | undefined> = process.env, options: StartOptions = {}): Telemetry | undefined {
  const config = tracingConfig(env);
  if (!config.enabled && !options.spanProcessors) return undefined;
  const { NodeSDK } = load<typeof import("@opentelemetry/sdk-node")>("@opentelemetry/sdk-node");
  const sdk = new NodeSDK({
    ...(config.serviceName ? { serviceName: config.serviceName } : {}),
    ...(options.spanProcessors ? { spanProcessors: options.spanProcessors } : {}),
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: options.instrument === false ? [] : serverInstrumentations(),
  });
  sdk.start();
  const tracer = otelTurnTracer({ tracer: trace.getTracer("delegate"), captureContent: config.captureContent });
  let stopped: Promise<void> | undefined;
  return { tracer, shutdown: () => (stopped ??= sdk.shutdown()) };
}

const load = <T>(name: string): T => createRequire(import.meta.url)(name) as T;

/**
 * Server spans for HTTP requests and Socket.IO events. They patch `http` and `socket.io`
 * as those are first required, so the SDK must start before the app's modules load.
 * Health checks and Next's static files would only add noise, and so would a span per
 * relayed `agent:event` (one per streamed token and step, to every viewer): the turn's own
 * spans already say what the agents did, and those emits are the relay's hot path, which
 * a span each would slow by nearly half (`npm run bench:tracing`).
 */
function serverInstrumentations() {
  const { HttpInstrumentation } = load<typeof import("@opentelemetry/instrumentation-http")>("@opentelemetry/instrumentation-http");
  const { SocketIoInstrumentation } = load<typeof import("@opentelemetry/instrumentation-socket.io")>(
    "@opentelemetry/instrumentation-socket.io",
  );
  return [
    new HttpInstrumentation({
      ignoreIncomingRequestHook: (request) => /^\/(_next\/|api\/health|metrics|favicon)/.test(request.url ?? ""),
    }),
    new SocketIoInstrumentation({ emitIgnoreEventList: ["agent:event"] satisfies (keyof ServerToClientEvents)[] }),
  ];
}
