import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { context, trace } from "@opentelemetry/api";
import { tracing } from "@opentelemetry/sdk-node";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { BUILTIN_DEFINITIONS } from "@/lib/agent/definitions";
import type { ChatTurn, SubagentProcess, TurnStats } from "@/lib/contracts";
import { createDemoModel } from "@/lib/model/demo-model";
import { createOpenAIModel } from "@/lib/model/openai-adapter";
import { scriptedReply, startScriptedOpenAIServer } from "@/test/support/model/scripted-openai-server";
import { statsAttributes } from "@/lib/telemetry/genai";
import { createWorkspaceTools } from "@/lib/tools";
import { processInTurn } from "@/lib/turn/paths";
import { startTestTurn, tempWorkspace } from "@/test/support/agent/harness";
import { scriptedModel } from "@/test/support/agent/scripted-model";
import {
  agentShape,
  allStrings,
  childrenNamed,
  flatFromSdk,
  treeOf,
  type FlatSpan,
  type SpanNode,
} from "@/test/support/telemetry/span-tree";
import { dataOf } from "@/test/support/turn/agent-data";
import { otelTurnTracer } from "./otel-turn-tracer";
import { withTraceContext } from "./propagate";
import { startTelemetry, type Telemetry } from "./sdk";

/**
 * A real demo turn through the runtime, traced by the SDK into memory: one trace, the
 * agents' tree as the conventions want it, the stored figures on the spans, and message
 * content only when the operator asks for it.
 */
const PROMPT = "Deep dive into the tide predictor and the datum conversion";

let workspace: string;
let telemetry: Telemetry;
const exporter = new tracing.InMemorySpanExporter();
beforeAll(() => {
  workspace = mkdtempSync(join(tmpdir(), "delegate-trace-"));
  cpSync(resolve("workspace"), workspace, { recursive: true });
  telemetry = startTelemetry({}, { spanProcessors: [new tracing.SimpleSpanProcessor(exporter)], instrument: false })!;
});
afterAll(async () => {
  await telemetry.shutdown();
  rmSync(workspace, { recursive: true, force: true });
});
beforeEach(() => exporter.reset());

async function tracedTurn(tracer = telemetry.tracer) {
  const run = startTestTurn(
    {
      model: createDemoModel({ chunkDelayMs: 0 }),
      workspaceDir: workspace,
      tools: createWorkspaceTools(),
      definitions: [...BUILTIN_DEFINITIONS],
      tracer,
    },
    PROMPT,
  );
  const result = await run.result;
  expect(result.status).toBe("completed");
  const spans = flatFromSdk(exporter.getFinishedSpans());
  return { run, result, spans };
}

function runStats(turn: ChatTurn, runId: string): TurnStats {
  const process: SubagentProcess | undefined = processInTurn(turn, runId);
  expect(process, runId).toBeDefined();
  return process!.stats;
}

function agents(node: SpanNode): SpanNode[] {
  return [node, ...node.children.flatMap((c) => agents(c))].filter((n) => n.name.startsWith("invoke_agent "));
}

/** Text a tool read from the workspace and gave its agent: must never be on a span unless content is captured. */
function toolOutputSample(run: Awaited<ReturnType<typeof tracedTurn>>["run"]): string {
  const results = dataOf(run.events, "tool_result").filter((r) => r.status === "success" && !r.response.includes("Subagent Result"));
  const long = results.map((r) => r.response.split("\n").find((line) => line.trim().length > 30)).find(Boolean);
  expect(long, "some tool returned a line of text").toBeDefined();
  return long!.trim();
}

describe("a traced turn", () => {
  it("is one trace: master → subagent call → general → two subagent calls → explore ×2, with chat and tool spans under each agent", async () => {
    const { result, spans } = await tracedTurn();
    expect(new Set(spans.map((s) => s.traceId)).size).toBe(1);
    const roots = treeOf(spans);
    expect(roots.map((r) => r.name)).toEqual(["invoke_agent master"]);
    const [root] = roots;
    expect(agentShape(root!)).toEqual({
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
    for (const agent of agents(root!)) {
      expect(childrenNamed(agent, "chat ").length, agent.name).toBeGreaterThan(0);
      expect(childrenNamed(agent, "execute_tool ").length, agent.name).toBeGreaterThan(0);
      expect(agent.attributes).toMatchObject({ "gen_ai.operation.name": "invoke_agent", "gen_ai.conversation.id": "s1" });
    }
    expect(root!.attributes).toMatchObject({ "gen_ai.agent.name": "master", "gen_ai.agent.id": "t1" });
    const explorers = agents(root!).filter((a) => a.name === "invoke_agent explore");
    for (const explore of explorers) {
      const tools = childrenNamed(explore, "execute_tool ");
      for (const tool of tools)
        expect(tool.attributes).toMatchObject({
          "gen_ai.operation.name": "execute_tool",
          "gen_ai.tool.type": "function",
          "gen_ai.tool.call.id": expect.any(String),
        });
    }
    const chat = spans.find((s) => s.name.startsWith("chat "))!;
    expect(chat.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.request.model": "demo",
      "gen_ai.provider.name": "delegate.demo",
    });
    expect(chat.attributes["gen_ai.response.finish_reasons"]).toEqual([expect.any(String)]);
    expect(result.turn.status).toBe("completed");
    // Each spawned run's answer was condensed for its parent: an event on the spawning call.
    for (const call of spans.filter((s) => s.name === "execute_tool subagent"))
      expect(call.events.map((e) => e.name)).toContain("delegate.result.condensed");
  });

  it("carries the figures the turn stores: each agent's its run's stats, the chat spans adding up to the turn's", async () => {
    const { result, spans } = await tracedTurn();
    const root = treeOf(spans)[0]!;
    expect(root.attributes).toMatchObject(statsAttributes(result.stats));
    for (const agent of agents(root).slice(1)) {
      const runId = agent.attributes["delegate.run.id"] as string;
      expect(agent.attributes, agent.name).toMatchObject(statsAttributes(runStats(result.turn, runId)));
    }
    const chats = spans.filter((s) => s.name.startsWith("chat "));
    const sum = (purpose: string, key: string) =>
      chats.filter((s) => s.attributes["delegate.model.purpose"] === purpose).reduce((n, s) => n + Number(s.attributes[key] ?? 0), 0);
    expect(chats.every((s) => typeof s.attributes["gen_ai.usage.input_tokens"] === "number")).toBe(true);
    expect(sum("chat", "gen_ai.usage.input_tokens")).toBe(result.stats.chat.inputTokens);
    expect(sum("chat", "gen_ai.usage.output_tokens")).toBe(result.stats.chat.outputTokens);
    expect(sum("system", "gen_ai.usage.input_tokens")).toBe(result.stats.system.inputTokens);
    expect(sum("system", "gen_ai.usage.output_tokens")).toBe(result.stats.system.outputTokens);
  });

  it("holds no prompt, answer or tool output unless content capture is on", async () => {
    const off = await tracedTurn();
    const sample = toolOutputSample(off.run);
    const offText = allStrings(off.spans);
    expect(offText.some((v) => v.includes(PROMPT))).toBe(false);
    expect(offText.some((v) => v.includes(sample))).toBe(false);

    exporter.reset();
    const capturing = otelTurnTracer({ tracer: trace.getTracer("delegate"), captureContent: true });
    const on = await tracedTurn(capturing);
    const onText = allStrings(on.spans);
    expect(onText.some((v) => v.includes(PROMPT))).toBe(true);
    expect(onText.some((v) => v.includes(toolOutputSample(on.run)))).toBe(true);
    const root: FlatSpan = on.spans.find((s) => s.name === "invoke_agent master")!;
    expect(JSON.parse(root.attributes["gen_ai.input.messages"] as string)).toEqual([
      { role: "user", parts: [{ type: "text", content: PROMPT }] },
    ]);
  });
});

describe("what goes wrong, and what people do, on a traced turn", () => {
  const demoTurn = (prompt: string, limits: Parameters<typeof startTestTurn>[0]["limits"] = {}, pace = { chunkDelayMs: 0 }) =>
    startTestTurn(
      {
        model: createDemoModel(pace),
        workspaceDir: workspace,
        tools: createWorkspaceTools(),
        definitions: [...BUILTIN_DEFINITIONS],
        tracer: telemetry.tracer,
        limits,
      },
      prompt,
    );

  it("marks a turn stopped by its budget as an error of type budget_exceeded", async () => {
    const result = await demoTurn(PROMPT, { turnBudget: { tokens: 1 } }).result;
    expect(result).toMatchObject({ status: "failed", endReason: "budget_exceeded" });
    const root = flatFromSdk(exporter.getFinishedSpans()).find((s) => s.name === "invoke_agent master")!;
    expect(root.attributes).toMatchObject({ "error.type": "budget_exceeded", ...statsAttributes(result.stats) });
    expect(exporter.getFinishedSpans().find((s) => s.name === "invoke_agent master")!.status.code).toBe(2);
  });

  it("records a compaction as an event on the agent whose context it shrank", async () => {
    const notes = await tempWorkspace({ "big.txt": "tide ".repeat(1_000) });
    try {
      const model = scriptedModel((_, i) =>
        i < 5 ? { text: "Reading.", toolCalls: [{ id: `c${i}`, name: "read_note", args: { name: "big" } }] } : { text: "Done." },
      );
      const run = startTestTurn({ model, workspaceDir: notes.dir, tracer: telemetry.tracer, limits: { contextTokens: 4_000 } }, "read it");
      expect((await run.result).status).toBe("completed");
    } finally {
      await notes.cleanup();
    }
    const compactions = flatFromSdk(exporter.getFinishedSpans()).flatMap((s) =>
      s.events.filter((e) => e.name === "delegate.context.compacted").map((e) => ({ span: s.name, attributes: e.attributes })),
    );
    expect(compactions.length).toBeGreaterThan(0);
    for (const c of compactions) {
      expect(c.span).toMatch(/^invoke_agent /);
      expect(c.attributes["delegate.compaction.after_tokens"]).toBeLessThan(c.attributes["delegate.compaction.before_tokens"] as number);
    }
  });

  it("marks a subagent its watchdog stopped as an error of type watchdog_timeout", async () => {
    const result = await demoTurn(PROMPT, { subagentTimeoutMs: 150 }, { chunkDelayMs: 50 }).result;
    const spans = exporter.getFinishedSpans().filter((s) => s.name.startsWith("invoke_agent ") && s.name !== "invoke_agent master");
    const timedOut = spans.filter((s) => s.attributes["delegate.run.end_reason"] === "watchdog_timeout");
    expect(timedOut.length, `turn ${result.status}`).toBeGreaterThan(0);
    for (const span of timedOut) {
      expect(span.status.code).toBe(2);
      expect(span.attributes["error.type"]).toBe("watchdog_timeout");
    }
  });

  it("records an approval asked for, decided by a person and ended as events on the call's span", async () => {
    const run = demoTurn("Fix the typo in CONTRIBUTING.md");
    let decided = false;
    for (let i = 0; i < 1000 && !decided; i++) {
      const asked = dataOf(run.events, "approval").find((e) => e.approval.state === "pending");
      if (asked) {
        run.handle.decide!(asked.callId, asked.runId, { approve: true, by: "u1" });
        decided = true;
      } else await new Promise((r) => setTimeout(r, 10));
    }
    expect(decided).toBe(true);
    expect((await run.result).status).toBe("completed");
    const call = flatFromSdk(exporter.getFinishedSpans()).find((s) => s.events.some((e) => e.name === "delegate.approval.requested"))!;
    expect(call.name).toMatch(/^execute_tool /);
    expect(call.events.map((e) => e.name)).toEqual([
      "delegate.approval.requested",
      "delegate.approval.decision_received",
      "delegate.approval.decided",
    ]);
    expect(call.events[2]!.attributes).toEqual({ "delegate.approval.state": "approved" });
  });
});

describe("trace context going out", () => {
  it("is on the model's HTTP request: the traceparent of its chat span", async () => {
    const server = await startScriptedOpenAIServer(() =>
      scriptedReply({ text: ["Hi ", "there."], usage: { promptTokens: 12, completionTokens: 3 } }),
    );
    try {
      const model = createOpenAIModel({ baseURL: server.url, apiKey: "k", model: "gw-model", maxRetries: 0, timeoutMs: 10_000 });
      const run = startTestTurn({ model, workspaceDir: workspace, tracer: telemetry.tracer }, "hello");
      expect((await run.result).status).toBe("completed");
      const chat = flatFromSdk(exporter.getFinishedSpans()).find((s) => s.name === "chat gw-model")!;
      expect(chat.attributes).toMatchObject({
        "gen_ai.usage.input_tokens": 12,
        "gen_ai.usage.output_tokens": 3,
        "server.address": expect.any(String),
      });
      expect(server.requests[0]!.headers.traceparent).toBe(`00-${chat.traceId}-${chat.spanId}-01`);
    } finally {
      await server.close();
    }
  });

  it("is added to an MCP request sent within a tool call's span, and nothing is added outside one", () => {
    const span = trace.getTracer("test").startSpan("execute_tool files.read");
    const init = context.with(trace.setSpan(context.active(), span), () => withTraceContext({ headers: { "x-a": "1" } }));
    span.end();
    const headers = new Headers(init?.headers);
    expect(headers.get("traceparent")).toBe(`00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`);
    expect(headers.get("x-a")).toBe("1");
    const plain = { headers: { "x-a": "1" } };
    expect(withTraceContext(plain)).toBe(plain);
  });
});
