import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/**
 * A real OpenAI-compatible HTTP server for tests, bound to 127.0.0.1 on a free port. It
 * answers `POST …/chat/completions` from a script, so tests exercise the real SDK, real
 * SSE framing and real sockets (timeouts, cut connections) instead of a mocked client.
 * Test use only: it has no auth and answers whatever it is told to.
 */

/** One step of a streamed reply. */
export type ScriptedStreamStep =
  /**
   * A `chat.completion.chunk` whose first choice carries this delta (and finish reason);
   * `onSent` is called once it is written (the load test times the relay from there).
   */
  | { delta: Record<string, unknown>; finishReason?: string | null; onSent?: () => void }
  /** A chunk with an empty delta that only carries the finish reason. */
  | { finishReason: string }
  /** The usage chunk `include_usage` asks for: no choices, only counts. */
  | { usage: { promptTokens: number; completionTokens: number } }
  /** Sent verbatim as one SSE event, `data: <raw>\n\n` (e.g. invalid JSON). */
  | { rawEvent: string }
  /** Sent verbatim with no framing: lets a test cut the stream inside an event. */
  | { rawBytes: string }
  | { delayMs: number };

export type ScriptedResponse =
  | {
      type: "stream";
      steps: ScriptedStreamStep[];
      /**
       * How the reply ends: `done` sends `data: [DONE]` and closes (the normal case),
       * `end` closes cleanly without it, `cut` destroys the socket, `hang` keeps it open.
       */
      end?: "done" | "end" | "cut" | "hang";
    }
  /** An HTTP error; `body` objects are sent as JSON, strings as-is. */
  | { type: "error"; status: number; body?: unknown; headers?: Record<string, string> }
  /** Accept the request and never answer (until `close()`). */
  | { type: "hang" }
  /** Destroy the connection before sending any response. */
  | { type: "reset" };

export interface ScriptedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body (undefined if it was not JSON). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read the fields of the request they scripted; nothing here validates it
  body: any;
}

export type ScriptedHandler = (request: ScriptedRequest, index: number) => ScriptedResponse;

export interface ScriptedOpenAIServer {
  /** Base URL to hand to the SDK, e.g. `http://127.0.0.1:54321/v1`. */
  url: string;
  /** Every chat-completions request received, in order. */
  requests: ScriptedRequest[];
  /** How many times `GET /models` was asked. */
  listings: number;
  close(): Promise<void>;
}

export interface ScriptedToolCall {
  id: string;
  name: string;
  /** The arguments JSON, split into the pieces the stream should deliver. */
  argumentChunks: string[];
}

/**
 * The chunk sequence a typical provider streams: optional reasoning, text pieces, tool
 * calls with their arguments split across chunks, the finish reason, then usage.
 */
export function scriptedReply(reply: {
  reasoning?: string[];
  text?: string[];
  toolCalls?: ScriptedToolCall[];
  finishReason?: string;
  usage?: { promptTokens: number; completionTokens: number };
  end?: "done" | "end" | "cut" | "hang";
}): ScriptedResponse {
  const steps: ScriptedStreamStep[] = [{ delta: { role: "assistant", content: "" } }];
  for (const piece of reply.reasoning ?? []) steps.push({ delta: { reasoning_content: piece } });
  for (const piece of reply.text ?? []) steps.push({ delta: { content: piece } });
  (reply.toolCalls ?? []).forEach((call, index) => {
    steps.push({
      delta: { tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] },
    });
    for (const piece of call.argumentChunks) {
      steps.push({ delta: { tool_calls: [{ index, function: { arguments: piece } }] } });
    }
  });
  const finishReason = reply.finishReason ?? (reply.toolCalls?.length ? "tool_calls" : "stop");
  steps.push({ finishReason });
  if (reply.usage) steps.push({ usage: reply.usage });
  return { type: "stream", steps, end: reply.end ?? "done" };
}

export function scriptedError(status: number, message: string, headers?: Record<string, string>): ScriptedResponse {
  return {
    type: "error",
    status,
    headers,
    body: { error: { message, type: status === 429 ? "rate_limit_error" : "invalid_request_error", code: null } },
  };
}

export interface ScriptedServerOptions {
  /** What `GET /models` lists (its `data` entries); default one model, `scripted-model`. A function answers anew each time. */
  models?: unknown[] | (() => unknown[]);
}

export async function startScriptedOpenAIServer(
  script: ScriptedResponse[] | ScriptedHandler,
  options: ScriptedServerOptions = {},
): Promise<ScriptedOpenAIServer> {
  const requests: ScriptedRequest[] = [];
  let listings = 0;
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  let closed = false;

  const wait = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        resolve();
      }, ms);
      timers.add(timer);
    });

  const next = (request: ScriptedRequest, index: number): ScriptedResponse | undefined =>
    typeof script === "function" ? script(request, index) : script[index];

  const server = createServer((req, res) => {
    void handle(req, res).catch(() => res.destroy());
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const raw = await readBody(req);
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    if (req.method === "GET" && path.endsWith("/models")) {
      listings++;
      const models = typeof options.models === "function" ? options.models() : options.models;
      return sendJson(res, 200, { object: "list", data: models ?? [{ id: "scripted-model", object: "model" }] });
    }
    if (req.method !== "POST" || !path.endsWith("/chat/completions")) {
      return sendJson(res, 404, { error: { message: `scripted server: no route for ${req.method} ${path}` } });
    }
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      body = undefined;
    }
    const request: ScriptedRequest = { method: req.method, path, headers: req.headers, body };
    const index = requests.push(request) - 1;
    const response = next(request, index);
    if (!response) {
      return sendJson(res, 500, { error: { message: `scripted server: nothing scripted for request #${index + 1}` } });
    }
    switch (response.type) {
      case "hang":
        return;
      case "reset":
        req.socket.destroy();
        return;
      case "error": {
        const text = typeof response.body === "string" ? response.body : JSON.stringify(response.body ?? {});
        const type = typeof response.body === "string" ? "text/plain" : "application/json";
        res.writeHead(response.status, { "content-type": type, ...response.headers });
        res.end(text);
        return;
      }
      case "stream":
        return stream(req, res, response, String((body as { model?: unknown })?.model ?? "scripted-model"));
    }
  }

  async function stream(req: IncomingMessage, res: ServerResponse, response: Extract<ScriptedResponse, { type: "stream" }>, model: string) {
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
    const base = { id: "chatcmpl-scripted", object: "chat.completion.chunk", created: 1_700_000_000, model };
    for (const step of response.steps) {
      if (closed || res.destroyed) return;
      if ("delayMs" in step) {
        await wait(step.delayMs);
      } else if ("rawBytes" in step) {
        res.write(step.rawBytes);
      } else if ("rawEvent" in step) {
        res.write(`data: ${step.rawEvent}\n\n`);
      } else if ("usage" in step) {
        const { promptTokens, completionTokens } = step.usage;
        const usage = {
          prompt_tokens: promptTokens,
          completion_tokens: completionTokens,
          total_tokens: promptTokens + completionTokens,
        };
        res.write(`data: ${JSON.stringify({ ...base, choices: [], usage })}\n\n`);
      } else {
        const delta = "delta" in step ? step.delta : {};
        const choice = { index: 0, delta, finish_reason: step.finishReason ?? null };
        res.write(`data: ${JSON.stringify({ ...base, choices: [choice] })}\n\n`);
        if ("onSent" in step) step.onSent?.();
      }
    }
    switch (response.end ?? "done") {
      case "done":
        res.end("data: [DONE]\n\n");
        return;
      case "end":
        res.end();
        return;
      case "cut":
        // Let the written bytes leave before the socket dies, as a real mid-stream drop would.
        await wait(20);
        req.socket.destroy();
        return;
      case "hang":
        return;
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    // Loopback only: this server must never be reachable from another machine.
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    get listings() {
      return listings;
    },
    close: async () => {
      closed = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}
