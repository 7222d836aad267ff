import { trace } from "@opentelemetry/api";
import { tracing } from "@opentelemetry/sdk-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SessionEvent } from "@/lib/contracts";
import { createDemoModel } from "@/lib/model/demo-model";
import { request, runtimeWith, waitFor } from "@/test/support/server/app-harness";
import { liveView, startClusterApps, type ClusterApps } from "@/test/support/server/cluster-apps";
import { otelTurnTracer } from "./otel-turn-tracer";
import { startTelemetry, type Telemetry } from "./sdk";

/**
 * Two app processes' worth of apps on one database and one real Redis, each tracing with a
 * tracer of its own name: a turn run by A and steered and killed from a viewer on B is one
 * trace, every span of it made by A, the relayed commands events on the runs they reached.
 */
const exporter = new tracing.InMemorySpanExporter();
let telemetry: Telemetry;
let cluster: ClusterApps;
const MEMBERS = ["app-a", "app-b"];

beforeAll(async () => {
  telemetry = startTelemetry({}, { spanProcessors: [new tracing.SimpleSpanProcessor(exporter)], instrument: false })!;
  cluster = await startClusterApps("cluster-trace", {
    count: 2,
    runnerFor: (index) =>
      runtimeWith(createDemoModel({ chunkDelayMs: 5 }), {
        tracer: otelTurnTracer({ tracer: trace.getTracer(MEMBERS[index]!), captureContent: false }),
      }),
  });
});
afterAll(async () => {
  await cluster?.close();
  await telemetry?.shutdown();
});

describe("a turn's trace across processes", () => {
  it("is one trace from the owner, with a steer and a kill sent through the other process as events on the right runs", async () => {
    const [a, b] = cluster.members;
    const cookie = await a!.newCookie();
    const socketA = await a!.client(cookie);
    const created = await request(socketA, "session:create", {});
    if (!created.ok) throw new Error(created.message);
    const { sessionId } = created.data;
    const onB = liveView(await b!.client(cookie), sessionId);
    await onB.join();
    const socketB = await b!.client(cookie);
    const sent = await request(socketA, "turn:send", { sessionId, text: "Investigate the open bugs and the release plan" });
    if (!sent.ok) throw new Error(sent.message);
    const started = () => onB.events.flatMap((e: SessionEvent) => (e.type === "subagent_started" ? [e.runId] : []));
    await waitFor(() => started().length >= 1, 15_000, "a subagent seen on B");
    const first = started()[0]!;
    expect(await request(socketB, "subagent:steer", { sessionId, runId: first, message: "Focus on the release blockers." })).toMatchObject({
      ok: true,
    });
    await waitFor(() => started().length >= 2, 15_000, "a second subagent seen on B");
    const second = started()[1]!;
    expect(await request(socketB, "subagent:kill", { sessionId, runId: second })).toMatchObject({ ok: true });
    await waitFor(() => onB.events.some((e) => e.type === "turn:ended"), 30_000, "the turn's end on B");

    const spans = exporter.getFinishedSpans();
    const masters = spans.filter((s) => s.name === "invoke_agent master" && s.attributes["delegate.turn.id"] === sent.data.turnId);
    expect(masters).toHaveLength(1);
    const { traceId } = masters[0]!.spanContext();
    const turnSpans = spans.filter((s) => s.spanContext().traceId === traceId);
    // Every span of the turn came from its owner, A.
    expect(new Set(turnSpans.map((s) => s.instrumentationScope.name))).toEqual(new Set(["app-a"]));
    const agent = (runId: string) =>
      turnSpans.find((s) => s.name.startsWith("invoke_agent ") && s.attributes["delegate.run.id"] === runId)!;
    const events = (runId: string) => agent(runId).events.map((e) => e.name);
    expect(events(first)).toContain("delegate.steer.received");
    expect(events(first)).toContain("delegate.steer.injected");
    expect(events(second)).toContain("delegate.kill.requested");
    expect(agent(second).attributes["delegate.run.end_reason"]).toBe("killed");
    // Content capture is off: the steer's words are not on the trace.
    const words = turnSpans.flatMap((s) => [...Object.values(s.attributes), ...s.events.flatMap((e) => Object.values(e.attributes ?? {}))]);
    expect(words.some((v) => typeof v === "string" && v.includes("release blockers"))).toBe(false);
  });
});
