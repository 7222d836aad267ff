import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { BUILTIN_DEFINITIONS } from "@/lib/agent/definitions";
import { createDemoModel } from "@/lib/model/demo-model";
import { createWorkspaceTools } from "@/lib/tools";
import { startTestTurn } from "@/test/support/agent/harness";
import { ensureJaeger, startJaeger, type RunningJaeger } from "@/test/support/telemetry/jaeger";
import { agentShape, treeOf, type FlatSpan } from "@/test/support/telemetry/span-tree";
import { startTelemetry, type Telemetry } from "./sdk";

/**
 * A demo turn's trace through the real path: the SDK configured by OTEL_* alone, OTLP over
 * HTTP to a real Jaeger (scripts/jaeger.sh builds it), read back from Jaeger's query API.
 */
const PROMPT = "Deep dive into the tide predictor and the datum conversion";

let jaeger: RunningJaeger;
let telemetry: Telemetry;
let workspace: string;
beforeAll(async () => {
  // Built by scripts/ensure-test-deps.sh; built here when missing (long, once per version).
  const bin = ensureJaeger();
  jaeger = await startJaeger(bin);
  vi.stubEnv("OTEL_EXPORTER_OTLP_ENDPOINT", jaeger.otlpUrl);
  vi.stubEnv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf");
  vi.stubEnv("OTEL_SERVICE_NAME", "");
  telemetry = startTelemetry(process.env, { instrument: false })!;
  workspace = mkdtempSync(join(tmpdir(), "delegate-jaeger-trace-"));
  cpSync(resolve("workspace"), workspace, { recursive: true });
}, 45 * 60_000);
afterAll(async () => {
  await telemetry?.shutdown();
  await jaeger?.stop();
  vi.unstubAllEnvs();
  if (workspace) rmSync(workspace, { recursive: true, force: true });
});

interface JaegerSpan {
  traceID: string;
  spanID: string;
  operationName: string;
  references?: { refType: string; spanID: string }[];
  tags: { key: string; value: unknown }[];
}

function flatFromJaeger(spans: JaegerSpan[]): FlatSpan[] {
  return spans.map((s) => ({
    name: s.operationName,
    spanId: s.spanID,
    traceId: s.traceID,
    parentSpanId: s.references?.find((r) => r.refType === "CHILD_OF")?.spanID,
    attributes: Object.fromEntries(s.tags.map((t) => [t.key, t.value])),
    events: [],
  }));
}

/** The turn's trace as Jaeger holds it, once it holds every span the app sent (bounded polling). */
async function traceOfTurn(turnId: string, spanCount: number): Promise<JaegerSpan[]> {
  let last = "";
  for (let attempt = 0; attempt < 150; attempt++) {
    const response = await fetch(`${jaeger.queryUrl}/api/traces?service=delegate&limit=50&lookback=1h`);
    last = `${response.status}`;
    if (response.ok) {
      const body = (await response.json()) as { data: { spans: JaegerSpan[] }[] };
      const found = body.data.find((t) =>
        t.spans.some((s) => s.tags.some((tag) => tag.key === "delegate.turn.id" && tag.value === turnId)),
      );
      if (found && found.spans.length >= spanCount) return found.spans;
      last = `${found?.spans.length ?? 0} of ${spanCount} spans`;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`Jaeger never held the whole trace (${last})`);
}

describe("a turn's trace in Jaeger", () => {
  it("arrives over OTLP as one trace with the agents' tree, under the service name delegate", async () => {
    const run = startTestTurn(
      {
        model: createDemoModel({ chunkDelayMs: 0 }),
        workspaceDir: workspace,
        tools: createWorkspaceTools(),
        definitions: [...BUILTIN_DEFINITIONS],
        tracer: telemetry.tracer,
      },
      PROMPT,
      [],
      { turnId: "jaeger-turn" },
    );
    const result = await run.result;
    expect(result.status).toBe("completed");
    // Everything the turn made is exported before we look (the SDK batches).
    await telemetry.shutdown();
    const services = (await (await fetch(`${jaeger.queryUrl}/api/services`)).json()) as { data: string[] };
    expect(services.data).toContain("delegate");
    // 1 master + 3 subagents, at least one chat and one tool span each, and 3 spawning calls.
    const spans = flatFromJaeger(await traceOfTurn("jaeger-turn", 4 * 3 + 3));
    expect(new Set(spans.map((s) => s.traceId)).size).toBe(1);
    const roots = treeOf(spans);
    expect(roots.map((r) => r.name)).toEqual(["invoke_agent master"]);
    expect(agentShape(roots[0]!)).toEqual({
      "invoke_agent master": [
        {
          "execute_tool subagent": [
            {
              "invoke_agent general": [
                { "execute_tool subagent": [{ "invoke_agent explore": [] }] },
                { "execute_tool subagent": [{ "invoke_agent explore": [] }] },
              ],
            },
          ],
        },
      ],
    });
    expect(roots[0]!.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.conversation.id": "s1",
      "gen_ai.usage.input_tokens": result.stats.chat.inputTokens + result.stats.system.inputTokens,
    });
  }, 120_000);
});
