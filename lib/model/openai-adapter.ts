import { setTimeout as delay } from "node:timers/promises";
import OpenAI from "openai";
import pRetry, { AbortError } from "p-retry";
import type { ChatCompletionChunk, ChatCompletionCreateParamsStreaming } from "openai/resources/chat/completions";
import { toModelError } from "./openai-errors";
import { ToolCallAssembler, toFinishReason, toWireMessages, toWireTools, wireToolNames } from "./openai-wire";
import { ModelError, type ChatModel, type ModelRequest, type ModelStreamEvent } from "./types";

export interface OpenAIModelOptions {
  /** Any OpenAI-compatible endpoint, e.g. `http://localhost:11434/v1` for Ollama. */
  baseURL?: string;
  /** Optional: local servers (Ollama, vLLM, LM Studio) need none. */
  apiKey?: string;
  model: string;
  /** Longest silence tolerated from the provider: before the reply starts, and between chunks. */
  timeoutMs: number;
  /** Retries for rate limits, server errors and dropped connections before the answer starts. */
  maxRetries: number;
  label?: string;
}

const DEFAULT_BASE_URL = "https://api.openai.com/v1";
// The SDK insists on a key; local servers ignore whatever is sent.
const PLACEHOLDER_KEY = "no-key-needed";
const BASE_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 8_000;
/** A Retry-After longer than this is reported to the person instead of waited out. */
const MAX_RETRY_WAIT_MS = 30_000;

/** A chat model on any OpenAI-compatible chat-completions endpoint, streamed. */
export function createOpenAIModel(options: OpenAIModelOptions): ChatModel {
  const baseURL = options.baseURL ?? DEFAULT_BASE_URL;
  const host = hostOf(baseURL);
  const client = new OpenAI({
    baseURL,
    apiKey: options.apiKey || PLACEHOLDER_KEY,
    // Explicit nulls stop the SDK from reading OPENAI_ORG_ID / OPENAI_PROJECT_ID itself.
    organization: null,
    project: null,
    // Retries live here so they can honour the abort signal and report retryAfterMs.
    maxRetries: 0,
    timeout: options.timeoutMs,
    // Failures surface as ModelErrors; the SDK's own console logging would only duplicate them.
    logLevel: "off",
  });
  return {
    id: options.model,
    label: options.label ?? `${options.model} via ${host}`,
    isDemo: false,
    stream: (request) => streamCompletion(client, options, host, request),
  };
}

async function* streamCompletion(
  client: OpenAI,
  options: OpenAIModelOptions,
  host: string,
  request: ModelRequest,
): AsyncGenerator<ModelStreamEvent> {
  const names = wireToolNames(request.tools ?? [], request.messages);
  const body: ChatCompletionCreateParamsStreaming = {
    model: options.model,
    messages: toWireMessages(request.messages, names),
    stream: true,
    stream_options: { include_usage: true },
    ...(request.tools?.length ? { tools: toWireTools(request.tools, names) } : {}),
  };
  const watch = new Watchdog(options.timeoutMs, request.signal);
  const calls = new ToolCallAssembler();
  let finishReason: string | undefined;
  let usage: { inputTokens: number; outputTokens: number } | undefined;
  let answeredBy: string | undefined;

  try {
    const stream = await openStream(client, body, options, host, watch, request.headers);
    try {
      for await (const chunk of stream) {
        const events = readChunk(chunk, calls);
        if (chunk.usage) {
          usage = { inputTokens: chunk.usage.prompt_tokens ?? 0, outputTokens: chunk.usage.completion_tokens ?? 0 };
        }
        if (typeof chunk.model === "string" && chunk.model) answeredBy = chunk.model;
        const reason = chunk.choices?.[0]?.finish_reason;
        if (reason) finishReason = reason;
        // The consumer's own pace must not count as provider silence.
        watch.pause();
        for (const event of events) yield event;
        watch.resume();
      }
    } catch (error) {
      // A drop after the finish reason only loses the usage chunk; the answer is whole.
      if (!(finishReason && isDrop(error))) throw streamError(error, host);
    }
    // The SDK ends the iteration quietly when aborted, so the cause is read from the watchdog.
    if (watch.timedOut) throw timeoutError(host, options.timeoutMs);
    if (request.signal?.aborted) throw abortedError();
    if (!finishReason) {
      throw new ModelError("stream_cut", `The answer from the model server at ${host} was cut off before it finished; please try again.`);
    }
    for (const call of calls.finish()) yield { type: "tool_call", call: { ...call, name: names.fromWire(call.name) } };
    if (usage) yield { type: "usage", ...usage };
    yield { type: "done", finishReason: toFinishReason(finishReason), ...(answeredBy ? { model: answeredBy } : {}) };
  } catch (error) {
    if (watch.timedOut) throw timeoutError(host, options.timeoutMs);
    if (request.signal?.aborted) throw abortedError();
    throw toModelError(error, host);
  } finally {
    watch.dispose();
  }
}

const RETRYABLE = new Set(["rate_limited", "server_error", "stream_cut"]);

/**
 * Opens the stream, retrying what a retry can fix; only before any token was produced.
 * p-retry runs the attempts; the wait is ours (a Retry-After header, else jittered
 * exponential backoff), so p-retry's own delay is zero and `onFailedAttempt` sleeps or
 * throws the final error. Its abort signal is the watchdog's: the caller's cancel and the
 * provider's silence both stop it.
 */
async function openStream(
  client: OpenAI,
  body: ChatCompletionCreateParamsStreaming,
  options: OpenAIModelOptions,
  host: string,
  watch: Watchdog,
  headers: Record<string, string> | undefined,
) {
  return pRetry(
    async () => {
      try {
        return await client.chat.completions.create(body, { signal: watch.signal, maxRetries: 0, ...(headers ? { headers } : {}) });
      } catch (thrown) {
        // A cancel or a timeout ends it here; the caller turns it into aborted / timeout.
        if (watch.timedOut || watch.signal.aborted) throw new AbortError(thrown instanceof Error ? thrown : String(thrown));
        throw toModelError(thrown, host);
      }
    },
    {
      retries: options.maxRetries,
      minTimeout: 0,
      signal: watch.signal,
      onFailedAttempt: async ({ error, retriesConsumed, retriesLeft }) => {
        const modelError = error as ModelError;
        const wait = modelError.retryAfterMs ?? backoff(retriesConsumed);
        if (!RETRYABLE.has(modelError.code) || retriesLeft === 0 || wait > MAX_RETRY_WAIT_MS) {
          throw exhausted(modelError, retriesConsumed, wait);
        }
        watch.pause();
        try {
          await delay(wait, undefined, { signal: watch.signal });
        } finally {
          watch.resume();
        }
      },
    },
  );
}

function exhausted(error: ModelError, retries: number, wait: number): ModelError {
  const tried = retries > 0 ? ` Gave up after ${retries} ${retries === 1 ? "retry" : "retries"}.` : "";
  if (error.code === "rate_limited") {
    return new ModelError(
      "rate_limited",
      `${error.message}${tried} Try again in about ${Math.max(1, Math.ceil(wait / 1000))} s.`,
      error.status,
      wait,
    );
  }
  return tried ? new ModelError(error.code, `${error.message}${tried}`, error.status, error.retryAfterMs) : error;
}

function readChunk(chunk: ChatCompletionChunk, calls: ToolCallAssembler): ModelStreamEvent[] {
  const events: ModelStreamEvent[] = [];
  const delta = chunk.choices?.[0]?.delta as
    (ChatCompletionChunk.Choice.Delta & { reasoning_content?: unknown; reasoning?: unknown }) | undefined;
  if (!delta) return events;
  // DeepSeek and vLLM say `reasoning_content`; OpenRouter and Ollama say `reasoning`.
  const thinking = delta.reasoning_content ?? delta.reasoning;
  if (typeof thinking === "string" && thinking !== "") events.push({ type: "thinking", text: thinking });
  if (typeof delta.content === "string" && delta.content !== "") events.push({ type: "text", text: delta.content });
  if (delta.tool_calls?.length) calls.add(delta.tool_calls);
  return events;
}

function streamError(error: unknown, host: string): unknown {
  if (isDrop(error)) {
    return new ModelError("stream_cut", `The answer from the model server at ${host} was cut off mid-stream; please try again.`);
  }
  return error;
}

/** A socket that died under the body reader (undici: `TypeError: terminated`). */
function isDrop(error: unknown): boolean {
  return error instanceof Error && !(error instanceof OpenAI.APIError) && !(error instanceof SyntaxError) && !(error instanceof ModelError);
}

function timeoutError(host: string, timeoutMs: number): ModelError {
  return new ModelError("timeout", `The model server at ${host} did not answer within ${formatSeconds(timeoutMs)}.`);
}

function abortedError(): ModelError {
  return new ModelError("aborted", "The model request was cancelled.");
}

function backoff(attempt: number): number {
  const exponential = Math.min(MAX_BACKOFF_MS, BASE_BACKOFF_MS * 2 ** attempt);
  // Jitter keeps concurrent subagents from retrying in lockstep.
  return Math.round(exponential * (0.75 + Math.random() * 0.5));
}

function hostOf(baseURL: string): string {
  try {
    return new URL(baseURL).host || baseURL;
  } catch {
    return baseURL;
  }
}

function formatSeconds(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`;
}

/**
 * One abort signal for the request: fires when the caller aborts or when the provider
 * stays silent for `timeoutMs` while we wait on it. Paused while the consumer or a
 * retry backoff holds the floor.
 */
class Watchdog {
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  timedOut = false;

  constructor(
    private readonly timeoutMs: number,
    private readonly outer: AbortSignal | undefined,
  ) {
    if (outer?.aborted) this.controller.abort();
    outer?.addEventListener("abort", this.onOuterAbort, { once: true });
    this.resume();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  pause(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  resume(): void {
    this.pause();
    if (this.controller.signal.aborted) return;
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.controller.abort();
    }, this.timeoutMs);
  }

  dispose(): void {
    this.pause();
    this.outer?.removeEventListener("abort", this.onOuterAbort);
  }

  private readonly onOuterAbort = () => {
    this.pause();
    this.controller.abort();
  };
}
