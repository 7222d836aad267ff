import { Writable } from "node:stream";
import { tracing } from "@opentelemetry/sdk-node";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createDemoModel } from "@/lib/model/demo-model";
import { createLogger } from "@/server/log";
import { openSession, recordEvents, request, runtimeWith, startHarness, waitFor, type Harness } from "@/test/support/server/app-harness";
import { startTelemetry, type Telemetry } from "./sdk";

/**
 * The server's JSON log beside its traces: a turn runs inside its trace's context, so the
 * line its end writes names the trace of that turn, and a line written outside any turn
 * names none.
 */
const exporter = new tracing.InMemorySpanExporter();
let telemetry: Telemetry;
let harness: Harness | undefined;
const lines: Record<string, unknown>[] = [];

beforeAll(() => {
  telemetry = startTelemetry({}, { spanProcessors: [new tracing.SimpleSpanProcessor(exporter)], instrument: false })!;
});
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});
afterAll(async () => {
  await telemetry.shutdown();
});

function jsonLog() {
  let pending = "";
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      pending += chunk.toString();
      const parts = pending.split("\n");
      pending = parts.pop() ?? "";
      for (const part of parts) lines.push(JSON.parse(part) as Record<string, unknown>);
      done();
    },
  });
  return createLogger({ format: "json", destination });
}

describe("log lines and traces", () => {
  it("a turn's end line carries the trace id of that turn's master span; a line outside a turn carries none", async () => {
    const log = jsonLog();
    harness = await startHarness("log-trace", {
      runner: runtimeWith(createDemoModel({ chunkDelayMs: 0 }), { tracer: telemetry.tracer }),
      log,
    });
    const { socket, sessionId } = await openSession(harness);
    const events = recordEvents(socket);
    await request(socket, "session:join", { sessionId });
    const sent = await request(socket, "turn:send", { sessionId, text: "Investigate the open bugs and the release plan" });
    if (!sent.ok) throw new Error(sent.message);
    const { turnId } = sent.data;
    await waitFor(() => events.some((e) => e.type === "turn:ended" && e.turnId === turnId), 30_000, "the turn's end");
    await waitFor(() => lines.some((l) => l.turnId === turnId), 5_000, "the turn's end line");
    log.info("outside any turn");

    const master = exporter.getFinishedSpans().find((s) => s.name === "invoke_agent master" && s.attributes["delegate.turn.id"] === turnId);
    expect(master, "the turn's master span").toBeDefined();
    const endLine = lines.find((l) => l.turnId === turnId)!;
    expect(endLine).toMatchObject({ level: "info", msg: "Turn completed", sessionId, status: "completed" });
    expect(endLine.trace_id).toBe(master!.spanContext().traceId);
    expect(endLine.span_id).toBe(master!.spanContext().spanId);
    expect(lines.find((l) => l.msg === "outside any turn")).not.toHaveProperty("trace_id");
  });
});
