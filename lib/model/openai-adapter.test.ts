import { createServer } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createOpenAIModel, type OpenAIModelOptions } from "./openai-adapter";
import { toWireMessages } from "./openai-wire";
import {
  scriptedError,
  scriptedReply,
  startScriptedOpenAIServer,
  type ScriptedOpenAIServer,
  type ScriptedResponse,
} from "@/test/support/model/scripted-openai-server";
import { ModelError, type ChatModel, type ModelRequest, type ModelStreamEvent } from "./types";

let server: ScriptedOpenAIServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function modelFor(script: ScriptedResponse[], options: Partial<OpenAIModelOptions> = {}): Promise<ChatModel> {
  server = await startScriptedOpenAIServer(script);
  return createOpenAIModel({ baseURL: server.url, model: "test-model", timeoutMs: 5_000, maxRetries: 0, ...options });
}

async function collect(model: ChatModel, request: Partial<ModelRequest> = {}): Promise<ModelStreamEvent[]> {
  const events: ModelStreamEvent[] = [];
  for await (const event of model.stream({ messages: [{ role: "user", content: "hi" }], ...request })) {
    events.push(event);
  }
  return events;
}

async function failure(promise: Promise<unknown>): Promise<ModelError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ModelError);
  return error as ModelError;
}

const textOf = (events: ModelStreamEvent[]) => events.flatMap((e) => (e.type === "text" ? [e.text] : [])).join("");

describe("createOpenAIModel: streaming", () => {
  it("streams text deltas in order, then usage, then done", async () => {
    const model = await modelFor([
      scriptedReply({ text: ["The ", "tide ", "turns", "."], usage: { promptTokens: 12, completionTokens: 4 } }),
    ]);
    const events = await collect(model);
    expect(events).toEqual([
      { type: "text", text: "The " },
      { type: "text", text: "tide " },
      { type: "text", text: "turns" },
      { type: "text", text: "." },
      { type: "usage", inputTokens: 12, outputTokens: 4 },
      { type: "done", finishReason: "stop", model: "test-model" },
    ]);
  });

  it("labels itself with the model and host, and is not the demo", async () => {
    const model = await modelFor([]);
    expect(model.id).toBe("test-model");
    expect(model.label).toBe(`test-model via ${new URL(server!.url).host}`);
    expect(model.isDemo).toBe(false);
    expect(createOpenAIModel({ model: "m", timeoutMs: 1000, maxRetries: 0, label: "Mine" }).label).toBe("Mine");
    expect(createOpenAIModel({ model: "gpt-4o-mini", timeoutMs: 1000, maxRetries: 0 }).label).toBe("gpt-4o-mini via api.openai.com");
  });

  it("streams reasoning deltas as thinking, under either field name", async () => {
    const model = await modelFor([
      {
        type: "stream",
        steps: [
          { delta: { reasoning_content: "Check the " } },
          { delta: { reasoning: "tables." } },
          { delta: { content: "Done." } },
          { finishReason: "stop" },
        ],
      },
    ]);
    const events = await collect(model);
    expect(events.slice(0, 3)).toEqual([
      { type: "thinking", text: "Check the " },
      { type: "thinking", text: "tables." },
      { type: "text", text: "Done." },
    ]);
  });

  it("assembles tool calls whose arguments arrive split across chunks", async () => {
    const model = await modelFor([
      scriptedReply({
        text: ["Let me look."],
        toolCalls: [
          { id: "call_a", name: "grep", argumentChunks: ['{"pat', 'tern": "FIX', 'ME", "glob"', ': "*.py"}'] },
          { id: "call_b", name: "list_files", argumentChunks: [] },
        ],
        usage: { promptTokens: 30, completionTokens: 20 },
      }),
    ]);
    const events = await collect(model);
    const calls = events.flatMap((e) => (e.type === "tool_call" ? [e.call] : []));
    expect(calls).toEqual([
      { id: "call_a", name: "grep", arguments: '{"pattern": "FIXME", "glob": "*.py"}' },
      { id: "call_b", name: "list_files", arguments: "{}" },
    ]);
    expect(JSON.parse(calls[0]!.arguments)).toEqual({ pattern: "FIXME", glob: "*.py" });
    expect(events.at(-1)).toEqual({ type: "done", finishReason: "tool_calls", model: "test-model" });
    // Each call is emitted once, after the text and before usage.
    expect(events.map((e) => e.type)).toEqual(["text", "tool_call", "tool_call", "usage", "done"]);
  });

  it("sends our messages and tools in the chat-completions wire format", async () => {
    const model = await modelFor([scriptedReply({ text: ["ok"] })]);
    await collect(model, {
      messages: [
        { role: "system", content: "You are careful." },
        { role: "user", content: "Find the bugs." },
        {
          role: "assistant",
          content: "",
          toolCalls: [{ id: "call_1", name: "grep", arguments: '{"pattern":"BUG"}' }],
        },
        { role: "tool", toolCallId: "call_1", toolName: "grep", content: "src/a.py:3: # BUG" },
        { role: "assistant", content: "One bug." },
        { role: "user", content: "Thanks." },
      ],
      tools: [
        {
          name: "grep",
          description: "Search files",
          parameters: { type: "object", properties: { pattern: { type: "string" } }, required: ["pattern"] },
        },
      ],
    });
    const body = server!.requests[0]!.body;
    expect(body.model).toBe("test-model");
    expect(body.stream).toBe(true);
    expect(body.stream_options).toEqual({ include_usage: true });
    expect(body.messages).toEqual([
      { role: "system", content: "You are careful." },
      { role: "user", content: "Find the bugs." },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "call_1", type: "function", function: { name: "grep", arguments: '{"pattern":"BUG"}' } }],
      },
      { role: "tool", tool_call_id: "call_1", content: "src/a.py:3: # BUG" },
      { role: "assistant", content: "One bug." },
      { role: "user", content: "Thanks." },
    ]);
    expect(body.tools).toEqual([
      {
        type: "function",
        function: {
          name: "grep",
          description: "Search files",
          parameters: { type: "object", properties: { pattern: { type: "string" } }, required: ["pattern"] },
        },
      },
    ]);
  });

  it("omits tools when there are none and sends a placeholder key when none is configured", async () => {
    const model = await modelFor([scriptedReply({ text: ["ok"] }), scriptedReply({ text: ["ok"] })]);
    await collect(model);
    expect(server!.requests[0]!.body).not.toHaveProperty("tools");
    expect(server!.requests[0]!.headers.authorization).toMatch(/^Bearer \S+/);

    const keyed = createOpenAIModel({ baseURL: server!.url, apiKey: "sk-test-123", model: "m", timeoutMs: 5000, maxRetries: 0 });
    await collect(keyed);
    expect(server!.requests[1]!.headers.authorization).toBe("Bearer sk-test-123");
  });

  it("reports a length finish", async () => {
    const model = await modelFor([scriptedReply({ text: ["trunc"], finishReason: "length" })]);
    expect((await collect(model)).at(-1)).toEqual({ type: "done", finishReason: "length", model: "test-model" });
  });
});

describe("createOpenAIModel: failures", () => {
  it("400 becomes bad_request carrying the provider's message", async () => {
    const model = await modelFor([scriptedError(400, "Unknown parameter: 'tools[0].foo'.")]);
    const error = await failure(collect(model));
    expect(error.code).toBe("bad_request");
    expect(error.status).toBe(400);
    expect(error.message).toContain("Unknown parameter: 'tools[0].foo'.");
  });

  it("401 becomes unauthorized, says to check the key, and never echoes the key", async () => {
    const model = await modelFor([scriptedError(401, "Incorrect API key provided: sk-live-abcdef123456.")]);
    const error = await failure(collect(model));
    expect(error.code).toBe("unauthorized");
    expect(error.message).toMatch(/API key/);
    expect(error.message).not.toContain("abcdef123456");
    expect(server!.requests).toHaveLength(1);
  });

  it("403 becomes unauthorized", async () => {
    const model = await modelFor([scriptedError(403, "Project does not have access to model")]);
    expect((await failure(collect(model))).code).toBe("unauthorized");
  });

  it("429 with Retry-After is retried after the wait and then succeeds", async () => {
    const model = await modelFor([scriptedError(429, "Slow down", { "retry-after": "1" }), scriptedReply({ text: ["after the wait"] })], {
      maxRetries: 2,
    });
    const started = Date.now();
    const events = await collect(model);
    expect(textOf(events)).toBe("after the wait");
    expect(server!.requests).toHaveLength(2);
    // Honours the header instead of the much shorter default backoff.
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  });

  it("429 beyond maxRetries becomes rate_limited with retryAfterMs", async () => {
    const limited = () => scriptedError(429, "Rate limit reached for requests", { "retry-after-ms": "50" });
    const model = await modelFor([limited(), limited(), limited()], { maxRetries: 2 });
    const error = await failure(collect(model));
    expect(error.code).toBe("rate_limited");
    expect(error.retryAfterMs).toBe(50);
    expect(error.message).toContain("Rate limit reached for requests");
    expect(error.message).toMatch(/2 retries/);
    expect(server!.requests).toHaveLength(3);
  });

  it("500 is retried, and reported as server_error when it persists", async () => {
    const model = await modelFor([scriptedError(500, "The server had an error"), scriptedError(502, "<html><h1>Bad gateway</h1></html>")], {
      maxRetries: 1,
    });
    const error = await failure(collect(model));
    expect(error.code).toBe("server_error");
    expect(error.status).toBe(502);
    expect(server!.requests).toHaveLength(2);
  });

  it("a 503 followed by success recovers", async () => {
    const model = await modelFor([scriptedError(503, "overloaded"), scriptedReply({ text: ["fine"] })], {
      maxRetries: 1,
    });
    expect(textOf(await collect(model))).toBe("fine");
  });

  it("a connection dropped before the answer starts is retried", async () => {
    const model = await modelFor([{ type: "reset" }, scriptedReply({ text: ["second try"] })], { maxRetries: 1 });
    expect(textOf(await collect(model))).toBe("second try");
    expect(server!.requests).toHaveLength(2);
  });

  it("a provider that never answers becomes timeout", async () => {
    const model = await modelFor([{ type: "hang" }], { timeoutMs: 300 });
    const error = await failure(collect(model));
    expect(error.code).toBe("timeout");
    expect(error.message).toContain("did not answer within");
  });

  it("a stream that stalls after starting becomes timeout, keeping what arrived", async () => {
    const model = await modelFor([{ type: "stream", steps: [{ delta: { content: "Half" } }], end: "hang" }], {
      timeoutMs: 300,
    });
    const seen: ModelStreamEvent[] = [];
    const error = await failure(
      (async () => {
        for await (const event of model.stream({ messages: [{ role: "user", content: "hi" }] })) seen.push(event);
      })(),
    );
    expect(error.code).toBe("timeout");
    expect(seen).toEqual([{ type: "text", text: "Half" }]);
  });

  it("a connection cut mid-token becomes stream_cut", async () => {
    const model = await modelFor([
      {
        type: "stream",
        steps: [
          { delta: { content: "The tide" } },
          { rawBytes: 'data: {"id":"x","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":" tu' },
        ],
        end: "cut",
      },
    ]);
    const error = await failure(collect(model));
    expect(error.code).toBe("stream_cut");
  });

  it("a stream that closes without a finish reason becomes stream_cut", async () => {
    const model = await modelFor([{ type: "stream", steps: [{ delta: { content: "partial" } }], end: "end" }]);
    expect((await failure(collect(model))).code).toBe("stream_cut");
  });

  it("tool-call arguments that are not a JSON object pass through as written, for the tool to refuse", async () => {
    const model = await modelFor([
      scriptedReply({
        toolCalls: [
          { id: "c1", name: "file_read", argumentChunks: ['{"path": "READ', "ME.md"] },
          { id: "c2", name: "grep", argumentChunks: ['["FIXME"]'] },
        ],
      }),
    ]);
    const calls = (await collect(model)).flatMap((e) => (e.type === "tool_call" ? [e.call] : []));
    expect(calls).toEqual([
      { id: "c1", name: "file_read", arguments: '{"path": "README.md' },
      { id: "c2", name: "grep", arguments: '["FIXME"]' },
    ]);
  });

  it("a tool call without a name passes through with an empty name (the agent loop answers it)", async () => {
    const model = await modelFor([scriptedReply({ toolCalls: [{ id: "c1", name: "", argumentChunks: ["{}"] }] })]);
    const calls = (await collect(model)).flatMap((e) => (e.type === "tool_call" ? [e.call] : []));
    expect(calls).toEqual([{ id: "c1", name: "", arguments: "{}" }]);
  });

  it("sends malformed arguments back in history as {} (providers may reject invalid JSON there)", () => {
    const wire = toWireMessages([
      {
        role: "assistant",
        content: "",
        toolCalls: [
          { id: "c1", name: "grep", arguments: '{"pattern": "x' },
          { id: "c2", name: "grep", arguments: '{"pattern":"y"}' },
        ],
      },
    ]);
    expect(wire[0]).toMatchObject({ tool_calls: [{ function: { arguments: "{}" } }, { function: { arguments: '{"pattern":"y"}' } }] });
  });

  it("a chunk that is not JSON becomes malformed_output", async () => {
    const model = await modelFor([{ type: "stream", steps: [{ rawEvent: "{not json" }, { finishReason: "stop" }] }]);
    expect((await failure(collect(model))).code).toBe("malformed_output");
  });

  it("aborting mid-stream stops it with aborted", async () => {
    const model = await modelFor([
      { type: "stream", steps: [{ delta: { content: "Hello" } }, { delayMs: 10_000 }, { finishReason: "stop" }] },
    ]);
    const controller = new AbortController();
    const seen: ModelStreamEvent[] = [];
    const error = await failure(
      (async () => {
        for await (const event of model.stream({ messages: [{ role: "user", content: "hi" }], signal: controller.signal })) {
          seen.push(event);
          controller.abort();
        }
      })(),
    );
    expect(error.code).toBe("aborted");
    expect(seen).toEqual([{ type: "text", text: "Hello" }]);
  });

  it("an already-aborted signal never reaches the provider", async () => {
    const model = await modelFor([scriptedReply({ text: ["no"] })]);
    const error = await failure(collect(model, { signal: AbortSignal.abort() }));
    expect(error.code).toBe("aborted");
    expect(server!.requests).toHaveLength(0);
  });

  it("aborting during a retry wait stops at once", async () => {
    const model = await modelFor([scriptedError(429, "wait", { "retry-after": "20" })], { maxRetries: 3 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const error = await failure(collect(model, { signal: controller.signal }));
    expect(error.code).toBe("aborted");
  });

  it("a refused connection becomes unreachable", async () => {
    const port = await closedPort();
    const model = createOpenAIModel({ baseURL: `http://127.0.0.1:${port}/v1`, model: "m", timeoutMs: 5000, maxRetries: 0 });
    const error = await failure(collect(model));
    expect(error.code).toBe("unreachable");
    expect(error.message).toMatch(/connection refused/);
  });
});

/** A port that was free a moment ago, so connecting to it is refused. */
function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      const port = typeof address === "object" && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}
