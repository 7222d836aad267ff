/**
 * The model port: what the agent loop needs from any chat model. The OpenAI-compatible
 * adapter and the offline demo model both implement it, so the loop never knows which
 * one answers.
 */

export interface ModelToolCall {
  id: string;
  name: string;
  /** JSON text of the arguments, exactly as the model produced it. */
  arguments: string;
}

/**
 * A piece of a user message: text, or an image the model is shown. An image keeps its
 * name and size beside the bytes so that records and token estimates can speak of it
 * without the base64; the OpenAI adapter sends it as an `image_url` data URL.
 */
export type UserContentPart =
  { type: "text"; text: string } | { type: "image"; name: string; mimeType: string; size: number; base64: string };

export type ChatMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string | UserContentPart[] }
  | { role: "assistant"; content: string; toolCalls?: ModelToolCall[] }
  | { role: "tool"; content: string; toolCallId: string; toolName: string };

export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
}

export interface ModelRequest {
  messages: ChatMessage[];
  tools?: ToolSpec[];
  signal?: AbortSignal;
  /**
   * How many of the reply's tool calls its reader keeps; the rest are only counted. Model
   * output is untrusted and may ask for any number, and what is kept is copied, recorded
   * and stored.
   */
  maxToolCalls?: number;
  /**
   * Extra HTTP headers for the provider request: the trace context (`traceparent`) of the
   * request's span when the turn is traced, so a traced gateway joins the turn's trace.
   * Models that send no HTTP request ignore them.
   */
  headers?: Record<string, string>;
}

export type ModelStreamEvent =
  | { type: "text"; text: string }
  | { type: "thinking"; text: string }
  | { type: "tool_call"; call: ModelToolCall }
  | { type: "usage"; inputTokens: number; outputTokens: number }
  /** `model`: the model that answered, as the provider named it (absent when it did not say). */
  | { type: "done"; finishReason: "stop" | "tool_calls" | "length" | "other"; model?: string };

export interface ChatModel {
  /** The model name sent to the provider (or "demo"). */
  readonly id: string;
  /** What the UI shows, e.g. "gpt-4o-mini via api.openai.com" or "Offline demo model". */
  readonly label: string;
  readonly isDemo: boolean;
  stream(request: ModelRequest): AsyncIterable<ModelStreamEvent>;
  /** A watcher of one request (the model-call record), told what the reader of its stream reads. */
  observe?(request: ModelRequest): StreamObserver;
}

/**
 * Watches a request's stream beside its reader rather than in its way: it is told each
 * event the reader takes, then how the stream ended, and hands nothing on.
 */
export interface StreamObserver {
  event(event: ModelStreamEvent): void;
  /** `error`: why the stream failed; undefined when it ran to its end (or was stopped, see the request's signal). */
  end(error?: unknown): void;
}

export type ModelErrorCode =
  | "bad_request"
  | "unauthorized"
  | "rate_limited"
  | "server_error"
  | "timeout"
  | "malformed_output"
  | "stream_cut"
  | "aborted"
  | "unreachable";

/** Every model failure surfaces as one of these, with a sentence fit for the chat. */
export class ModelError extends Error {
  constructor(
    readonly code: ModelErrorCode,
    message: string,
    readonly status?: number,
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = "ModelError";
  }
}
