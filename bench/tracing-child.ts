import { startTelemetry } from "@/server/telemetry/sdk";

/**
 * One side of the tracing benchmark (bench/tracing-bench.ts), in a process of its own:
 * `tracing-child.ts on|off full|smoke`. "on" starts the OpenTelemetry SDK as server/telemetry/preload.ts
 * does, from OTEL_* (the parent points them at its loopback OTLP sink), before anything
 * loads `http` or `socket.io`, so the HTTP and Socket.IO instrumentations patch them as in
 * production. Prints one JSON line: the figures of bench/tracing-case.ts.
 */
const mode = process.argv[2];
const size = process.argv[3];
if ((mode !== "on" && mode !== "off") || (size !== "full" && size !== "smoke"))
  throw new Error("usage: tracing-child.ts on|off full|smoke");
const telemetry = mode === "on" ? startTelemetry(process.env) : undefined;
if (mode === "on" && !telemetry) throw new Error("tracing did not start: OTEL_EXPORTER_OTLP_ENDPOINT is not set");

const { runTracingCase, TRACING_FULL, TRACING_SMOKE } = await import("./tracing-case");
const figures = await runTracingCase({
  tracer: telemetry?.tracer,
  baseUri: process.env.MONGODB_URI!,
  size: size === "full" ? TRACING_FULL : TRACING_SMOKE,
});
// Every span still queued reaches the sink before the parent reads its count.
await telemetry?.shutdown();
process.stdout.write(`${JSON.stringify(figures)}\n`);
process.exit(0);
