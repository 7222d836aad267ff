import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDemoModel } from "@/lib/model/demo-model";
import { openSession, recordEvents, request, runtimeWith, startHarness, waitFor, type Harness } from "@/test/support/server/app-harness";
import { parseExposition, sumOf, valueOf, type Exposition } from "@/test/support/metrics/prom-text";

/**
 * /metrics on the real app: its exposition parses line by line, a turn with subagents and
 * tool calls (the offline demo model, the real workspace tools) moves the counters by what
 * the stored turn holds, and only the loopback interface, or a bearer of METRICS_TOKEN,
 * may read it. 127.0.0.2 plays a remote address: it is loopback to the kernel, so the app
 * is given a loopback check that knows only 127.0.0.1.
 */

const TOKEN = "metrics-token-for-tests-0123456789";
const onlyFirstLoopback = (address: string | undefined) => address === "127.0.0.1" || address === "::ffff:127.0.0.1";

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness("metrics", {
    runner: runtimeWith(createDemoModel({ chunkDelayMs: 1 })),
    metricsToken: TOKEN,
    metricsLoopback: onlyFirstLoopback,
  });
});
afterAll(async () => {
  await harness?.close();
});

interface Answer {
  status: number;
  contentType: string;
  body: string;
}

function get(baseUrl: string, path: string, options: { from?: string; headers?: Record<string, string> } = {}): Promise<Answer> {
  const url = new URL(path, baseUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: url.hostname, port: url.port, path: url.pathname, localAddress: options.from, headers: options.headers, agent: false },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (body += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, contentType: String(res.headers["content-type"]), body }));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

async function scrape(): Promise<Exposition> {
  const answer = await get(harness.baseUrl, "/metrics");
  expect(answer.status).toBe(200);
  expect(answer.contentType).toMatch(/^text\/plain; version=0\.0\.4/);
  return parseExposition(answer.body);
}

describe("/metrics", () => {
  it("is Prometheus text exposition, every line of it, with the process's default metrics and the app's own", async () => {
    const parsed = await scrape();
    expect(parsed.samples.length).toBeGreaterThan(20);
    for (const family of [
      "process_cpu_user_seconds_total",
      "nodejs_eventloop_lag_seconds",
      "delegate_turns_started_total",
      "delegate_turns_ended_total",
      "delegate_subagent_runs_started_total",
      "delegate_subagent_runs_ended_total",
      "delegate_tool_call_duration_seconds",
      "delegate_approvals_waiting",
      "delegate_budget_stops_total",
      "gen_ai_client_operation_duration_seconds",
      "gen_ai_client_token_usage",
      "delegate_event_store_queue_depth",
      "delegate_event_store_writes_given_up_total",
      "delegate_cluster_relay_lag_seconds",
      "delegate_cluster_lease_takeovers_total",
      "delegate_sockets",
      "delegate_live_sessions",
      "delegate_turns_running",
    ]) {
      expect(parsed.types.has(family), family).toBe(true);
    }
  });

  it("moves by what a turn with subagents and tool calls did, as the stored turn says", async () => {
    const before = await scrape();
    const { socket, sessionId } = await openSession(harness);
    const events = recordEvents(socket);
    await request(socket, "session:join", { sessionId });
    await request(socket, "turn:send", { sessionId, text: "Investigate the open bugs and the release plan" });
    await waitFor(() => events.some((e) => e.type === "turn:ended"), 30_000, "the turn to end");
    await harness.app.registry.peekReady(sessionId)?.drain();

    const turn = await harness.models.Turn.findOne({ sessionId }).lean();
    const runs = await harness.models.SubagentRun.find({ sessionId }).lean();
    const calls = await harness.models.ToolCall.find({ sessionId }).lean();
    expect(turn?.status).toBe("completed");
    expect(runs.length).toBeGreaterThan(0);
    expect(calls.length).toBeGreaterThan(runs.length);

    const after = await scrape();
    const delta = (name: string, labels: Record<string, string> = {}) => sumOf(after, name, labels) - sumOf(before, name, labels);
    expect(delta("delegate_turns_started_total")).toBe(1);
    expect(delta("delegate_turns_ended_total")).toBe(1);
    expect(delta("delegate_turns_ended_total", { reason: "completed" })).toBe(1);
    expect(delta("delegate_subagent_runs_started_total")).toBe(runs.length);
    expect(delta("delegate_subagent_runs_ended_total", { reason: "completed" })).toBe(runs.filter((r) => r.status === "success").length);
    expect(delta("delegate_subagent_runs_ended_total")).toBe(runs.length);

    // Every call of every agent, by tool, as stored.
    const byTool = new Map<string, number>();
    for (const call of calls) byTool.set(call.name, (byTool.get(call.name) ?? 0) + 1);
    expect(byTool.get("subagent")).toBe(runs.length);
    for (const [tool, count] of byTool) {
      expect(delta("delegate_tool_call_duration_seconds_count", { tool }), tool).toBe(count);
      expect(delta("delegate_tool_call_duration_seconds_count", { tool, status: "success" }), tool).toBe(count);
    }
    expect(delta("delegate_tool_call_duration_seconds_count")).toBe(calls.length);

    // The tokens are the turn's stats (they hold every subagent's): chat and system requests alike.
    const stats = turn!.stats;
    expect(stats.chat.inputTokens).toBeGreaterThan(0);
    expect(delta("gen_ai_client_token_usage_sum", { gen_ai_token_type: "input" })).toBe(stats.chat.inputTokens + stats.system.inputTokens);
    expect(delta("gen_ai_client_token_usage_sum", { gen_ai_token_type: "output" })).toBe(
      stats.chat.outputTokens + stats.system.outputTokens,
    );
    const requests = await harness.models.ModelCall.countDocuments({ sessionId });
    expect(delta("gen_ai_client_operation_duration_seconds_count", { gen_ai_operation_name: "chat" })).toBe(requests);
    expect(valueOf(after, "delegate_approvals_waiting")).toBe(0);
    expect(valueOf(after, "delegate_turns_running")).toBe(0);
    expect(valueOf(after, "delegate_live_sessions")).toBeGreaterThanOrEqual(1);
    expect(valueOf(after, "delegate_sockets")).toBeGreaterThanOrEqual(1);
    expect(valueOf(after, "delegate_event_store_queue_depth")).toBe(0);
    socket.disconnect();
  });

  it("refuses a remote address without the token, or with a wrong one, and answers the right bearer token", async () => {
    const none = await get(harness.baseUrl, "/metrics", { from: "127.0.0.2" });
    expect(none.status).toBe(401);
    expect(JSON.parse(none.body)).toMatchObject({ error: "token_required" });
    const wrong = await get(harness.baseUrl, "/metrics", {
      from: "127.0.0.2",
      headers: { authorization: "Bearer not-the-token-at-all-0000" },
    });
    expect(wrong.status).toBe(401);
    expect(JSON.parse(wrong.body)).toMatchObject({ error: "bad_token" });
    const right = await get(harness.baseUrl, "/metrics", { from: "127.0.0.2", headers: { authorization: `Bearer ${TOKEN}` } });
    expect(right.status).toBe(200);
    expect(parseExposition(right.body).types.has("delegate_turns_started_total")).toBe(true);
    // Through a proxy on this machine, a loopback address is anyone's.
    const proxied = await get(harness.baseUrl, "/metrics", { headers: { "x-forwarded-for": "203.0.113.9" } });
    expect(proxied.status).toBe(401);
  });

  it("without METRICS_TOKEN, refuses every remote address with a clear error", async () => {
    const other = await startHarness("metrics-notoken", {
      runner: runtimeWith(createDemoModel()),
      metricsLoopback: onlyFirstLoopback,
    });
    try {
      const refused = await get(other.baseUrl, "/metrics", { from: "127.0.0.2", headers: { authorization: `Bearer ${TOKEN}` } });
      expect(refused.status).toBe(403);
      expect(JSON.parse(refused.body)).toMatchObject({ error: "metrics_local_only", message: expect.stringContaining("METRICS_TOKEN") });
      expect((await get(other.baseUrl, "/metrics")).status).toBe(200);
    } finally {
      await other.close();
    }
  });
});
