import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { remoteAgentRefSchema, type RemoteAgentRef } from "@/lib/remote-agents/remote-ref";
import { RemoteAgentError, type RemoteUpdate } from "@/lib/remote-agents/transport";
import { startTestA2AAgent, type TestA2AAgent } from "@/test/support/a2a/test-agent";
import { createA2ATransport } from "./a2a-transport";
import { fetchCardGuarded, type CardFetch } from "./card-cache";

// The test agent listens on 127.0.0.1: an operator's definition (trusted) may reach it,
// one made in the app may not unless the host is allowed.
const agents: TestA2AAgent[] = [];
let agent: TestA2AAgent;

async function started(options?: Parameters<typeof startTestA2AAgent>[0]): Promise<TestA2AAgent> {
  const one = await startTestA2AAgent(options);
  agents.push(one);
  return one;
}

beforeAll(async () => {
  agent = await started();
});
afterAll(async () => {
  await Promise.all(agents.map((one) => one.close()));
});
afterEach(() => {
  vi.unstubAllEnvs();
});

const ref = (cardUrl: string, extra: Partial<RemoteAgentRef> = {}): RemoteAgentRef => remoteAgentRefSchema.parse({ cardUrl, ...extra });
const operator = (signal: AbortSignal = new AbortController().signal) => ({ trusted: true, signal });
const transport = createA2ATransport({ allowedHosts: [] });

async function all(updates: AsyncIterable<RemoteUpdate>): Promise<RemoteUpdate[]> {
  const seen: RemoteUpdate[] = [];
  for await (const update of updates) seen.push(update);
  return seen;
}

/** Each update as one line, the way a person would read the remote's progress. */
function lines(updates: RemoteUpdate[]): string[] {
  return updates.map((update) => {
    switch (update.kind) {
      case "task":
        return `task ${update.state}${update.artifacts.map((a) => ` [${a.name}: ${a.text}]`).join("")}`;
      case "status":
        return `status ${update.state}${update.text ? ` "${update.text}"` : ""}${update.final ? " (final)" : ""}`;
      case "artifact":
        return `artifact ${update.artifact.name} ${update.append ? "+" : "="} "${update.artifact.text}"${update.lastChunk ? " (last)" : ""}`;
      case "message":
        return `message "${update.text}"`;
    }
  });
}

describe("the A2A transport against a real A2A agent", () => {
  it("describes the agent from its card: its description and skills, and that it streams", async () => {
    const card = await transport.describe(ref(agent.cardUrl), operator());
    expect(card).toEqual({
      name: "Test warehouse agent",
      description: "Answers questions about the warehouse's sales data.\n\nSkills:\n- Sales report: Sums the sales of a region",
      streaming: true,
    });
  });

  it("streams a task's progress in order, with the artifact's chunks", async () => {
    const task = await transport.start(ref(agent.cardUrl), "stream the quarterly report", operator());
    expect(lines(await all(task.updates))).toEqual([
      "task submitted",
      'status working "Reading the data"',
      'status working "Summarising"',
      'artifact report = "Sales rose 4 %"',
      'artifact report + " in the third quarter." (last)',
      "status completed (final)",
    ]);
    expect(agent.messages).toContain("stream the quarterly report");
  });

  it("answers input-required with a message in the same task, which then completes", async () => {
    const task = await transport.start(ref(agent.cardUrl), "ask about sales", operator());
    const asked = await all(task.updates);
    expect(lines(asked).at(-1)).toBe('status input-required "Which region?" (final)');
    const answered = await all(task.send("Europe", new AbortController().signal));
    expect(lines(answered)).toContain('artifact answer = "Sales in Europe: 42" (last)');
    expect(lines(answered).at(-1)).toBe("status completed (final)");
    const taskIds = new Set([...asked, ...answered].map((update) => update.taskId));
    expect(taskIds.size).toBe(1);
  });

  it("cancels a running task: the agent sees the cancel and the stream ends canceled", async () => {
    const task = await transport.start(ref(agent.cardUrl), "slow count", operator());
    const seen: RemoteUpdate[] = [];
    let cancelled: Promise<void> | undefined;
    for await (const update of task.updates) {
      seen.push(update);
      if (update.kind === "status" && update.state === "working") cancelled ??= task.cancel();
    }
    await cancelled;
    expect(lines(seen).at(-1)).toBe('status canceled "Stopped on request" (final)');
    expect(agent.cancels).toContain(seen[0]?.taskId);
  });

  it("ends the iteration with the abort when the caller's signal aborts while the agent is silent", async () => {
    const controller = new AbortController();
    const task = await transport.start(ref(agent.cardUrl), "hang", operator(controller.signal));
    const iterator = task.updates[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toMatchObject({ kind: "task", state: "submitted" });
    const next = iterator.next();
    controller.abort();
    await expect(next).rejects.toMatchObject({ name: "AbortError" });
  });

  it.each([
    ["a JSON-RPC result that is no A2A payload", "garbage please", /answered something A2A does not allow: a stream item/],
    ["events that are not JSON", "garbage json", /answered something A2A does not allow: .*parse/i],
  ])("refuses %s with a RemoteAgentError", async (_, text, message) => {
    const failing = transport.start(ref(agent.cardUrl), text, operator());
    await expect(failing).rejects.toThrow(RemoteAgentError);
    await expect(transport.start(ref(agent.cardUrl), text, operator())).rejects.toThrow(message);
  });

  it("reports a failed task with the agent's message", async () => {
    const task = await transport.start(ref(agent.cardUrl), "fail now", operator());
    expect(lines(await all(task.updates)).at(-1)).toBe('status failed "The warehouse is offline" (final)');
  });

  it("asks an agent that does not stream once, and yields its one answer", async () => {
    const quiet = await started({ streaming: false });
    expect((await transport.describe(ref(quiet.cardUrl), operator())).streaming).toBe(false);
    const task = await transport.start(ref(quiet.cardUrl), "stream the report", operator());
    expect(lines(await all(task.updates))).toEqual(["task completed [report: Sales rose 4 % in the third quarter.]"]);
  });
});

describe("A2A 0.3", () => {
  it("speaks the 0.3 wire to an agent that offers only 0.3: a stream, then an answer in the same task", async () => {
    const legacy = await started({ legacy: true });
    const task = await transport.start(ref(legacy.cardUrl), "stream the report", operator());
    expect(lines(await all(task.updates))).toEqual([
      "task submitted",
      'status working "Reading the data"',
      'status working "Summarising"',
      'artifact report = "Sales rose 4 %"',
      'artifact report + " in the third quarter." (last)',
      "status completed (final)",
    ]);
    const asking = await transport.start(ref(legacy.cardUrl), "ask", operator());
    expect(lines(await all(asking.updates)).at(-1)).toBe('status input-required "Which region?" (final)');
    expect(lines(await all(asking.send("Asia", new AbortController().signal))).at(-1)).toBe("status completed (final)");
    expect(legacy.messages).toEqual(["stream the report", "ask", "Asia"]);
  });
});

describe("the bearer token", () => {
  it("is sent to the agent that requires it, and a wrong or missing one is refused as authorization", async () => {
    const guarded = await started({ token: "s3cret" });
    vi.stubEnv("TEST_A2A_TOKEN", "s3cret");
    vi.stubEnv("TEST_A2A_WRONG", "guess");
    const task = await transport.start(ref(guarded.cardUrl, { bearerTokenEnv: "TEST_A2A_TOKEN" }), "stream it", operator());
    expect(lines(await all(task.updates)).at(-1)).toBe("status completed (final)");

    const wrong = transport.start(ref(guarded.cardUrl, { bearerTokenEnv: "TEST_A2A_WRONG" }), "stream it", operator());
    await expect(wrong).rejects.toThrow(RemoteAgentError);
    await expect(wrong).rejects.toThrow(/refused the authorization \(HTTP 401\): check the token in TEST_A2A_WRONG/);
    await expect(transport.start(ref(guarded.cardUrl), "stream it", operator())).rejects.toThrow(/authorization.*needs a token/);
    expect(guarded.messages).toEqual(["stream it"]);
  });

  it("names the variable when it is not set", async () => {
    const start = transport.start(ref(agent.cardUrl, { bearerTokenEnv: "TEST_A2A_UNSET" }), "stream", operator());
    await expect(start).rejects.toThrow(/TEST_A2A_UNSET, which is not set/);
  });

  it("is never sent to an endpoint on another origin than the card's", async () => {
    const elsewhere = await started({
      cardOverride: {
        name: "Forwarder",
        description: "Points elsewhere.",
        capabilities: { streaming: true },
        supportedInterfaces: [{ url: agent.url, protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
      },
    });
    vi.stubEnv("TEST_A2A_TOKEN", "s3cret");
    const start = transport.start(ref(elsewhere.cardUrl, { bearerTokenEnv: "TEST_A2A_TOKEN" }), "stream", operator());
    await expect(start).rejects.toThrow(/names its endpoint on another origin .*sent only to/);
    expect(agent.messages).not.toContain("stream");
  });
});

describe("addresses and cards", () => {
  it("refuses a card on a private address for a definition made in the app, unless its host is allowed", async () => {
    const app = { trusted: false, signal: new AbortController().signal };
    const refused = transport.describe(ref(agent.cardUrl), app);
    await expect(refused).rejects.toThrow(RemoteAgentError);
    await expect(refused).rejects.toThrow(/was refused: 127\.0\.0\.1 is a loopback address/);
    const allowed = createA2ATransport({ allowedHosts: ["127.0.0.1"] });
    expect((await allowed.describe(ref(agent.cardUrl), app)).name).toBe("Test warehouse agent");
  });

  it("keeps a card for its time to live, then reads it again", async () => {
    let reads = 0;
    let now = 1_000;
    const counting: CardFetch = (url, options) => {
      reads++;
      return fetchCardGuarded(url, options);
    };
    const cached = createA2ATransport({ allowedHosts: [], cardTtlMs: 60_000, fetchCard: counting, now: () => now });
    await cached.describe(ref(agent.cardUrl), operator());
    await cached.describe(ref(agent.cardUrl), operator());
    const task = await cached.start(ref(agent.cardUrl), "stream", operator());
    await all(task.updates);
    expect(reads).toBe(1);
    now += 60_001;
    await cached.describe(ref(agent.cardUrl), operator());
    expect(reads).toBe(2);
  });

  it.each([
    [
      "a name that is not text",
      { name: 42, supportedInterfaces: [{ url: "/a2a/jsonrpc", protocolBinding: "JSONRPC" }] },
      /not valid: name/,
    ],
    [
      "a javascript: endpoint",
      { name: "X", supportedInterfaces: [{ url: "javascript:alert(1)", protocolBinding: "JSONRPC" }] },
      /not valid: .*http\(s\)/,
    ],
    ["no endpoint", { name: "X", description: "No way in." }, /not valid: names no endpoint/],
  ])("refuses a forged card with %s", async (_, cardOverride, message) => {
    const forged = await started({ cardOverride });
    await expect(transport.describe(ref(forged.cardUrl), operator())).rejects.toThrow(message);
  });

  it("shares one read of a card between callers, and a caller's abort ends only its own wait", async () => {
    const held: http.ServerResponse[] = [];
    const slow = http.createServer((_req, res) => void held.push(res));
    await new Promise<void>((resolve) => slow.listen(0, "127.0.0.1", resolve));
    try {
      const cardUrl = `http://127.0.0.1:${(slow.address() as AddressInfo).port}/.well-known/agent-card.json`;
      const shared = createA2ATransport({ allowedHosts: [] });
      const leaving = new AbortController();
      const first = shared.describe(ref(cardUrl), operator(leaving.signal));
      const second = shared.describe(ref(cardUrl), operator());
      await vi.waitFor(() => expect(held).toHaveLength(1));
      leaving.abort();
      await expect(first).rejects.toMatchObject({ name: "AbortError" });
      held[0]?.end(JSON.stringify({ name: "Held back", supportedInterfaces: [{ url: "/rpc", protocolBinding: "JSONRPC" }] }));
      expect((await second).name).toBe("Held back");
      expect(held).toHaveLength(1);
    } finally {
      slow.closeAllConnections();
      await new Promise((resolve) => slow.close(resolve));
    }
  });

  it("refuses a card that redirects to a private address", async () => {
    const redirecting = http.createServer((_req, res) => res.writeHead(302, { location: "http://10.1.2.3/agent-card.json" }).end());
    await new Promise<void>((resolve) => redirecting.listen(0, "127.0.0.1", resolve));
    try {
      const cardUrl = `http://127.0.0.1:${(redirecting.address() as AddressInfo).port}/.well-known/agent-card.json`;
      await expect(transport.describe(ref(cardUrl), operator())).rejects.toThrow(/was refused: 10\.1\.2\.3 is a private address/);
    } finally {
      await new Promise((resolve) => redirecting.close(resolve));
    }
  });
});
