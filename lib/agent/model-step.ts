import { wellFormed, type Usage } from "@/lib/contracts";
import { estimateRequestTokens, estimateTokens } from "@/lib/context/tokens";
import { ModelError, type ChatModel, type ModelRequest, type ModelToolCall } from "@/lib/model/types";

/**
 * One model request, streamed to completion. Usage comes from the provider when it reports
 * it, else from the estimator — every request is counted either way.
 */

export interface StepHooks {
  onText?(text: string): void;
  onThinking?(text: string): void;
  onToolCall?(call: ModelToolCall): void;
}

export interface StepResult {
  text: string;
  thinking: string;
  toolCalls: ModelToolCall[];
  usage: Usage;
  finishReason: "stop" | "tool_calls" | "length" | "other";
}

/** Thrown when a run's signal aborts; `reason` says why (cancelled, killed, watchdog…). */
export class AbortedError extends Error {
  constructor(readonly reason: unknown) {
    super(typeof reason === "string" ? reason : "aborted");
    this.name = "AbortedError";
  }
}

export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new AbortedError(signal.reason);
}

/**
 * Iterates `source` but gives up as soon as `signal` aborts, even if the source never
 * yields again — a hung provider must not keep a killed or timed-out run alive.
 */
export async function* abortable<T>(source: AsyncIterable<T>, signal: AbortSignal | undefined): AsyncGenerator<T> {
  const iterator = source[Symbol.asyncIterator]();
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(new AbortedError(signal?.reason));
    if (signal?.aborted) onAbort();
    else signal?.addEventListener("abort", onAbort, { once: true });
  });
  aborted.catch(() => undefined);
  let finished = false;
  try {
    while (true) {
      const next = await Promise.race([iterator.next(), aborted]);
      if (next.done) {
        finished = true;
        return;
      }
      yield next.value;
    }
  } finally {
    if (onAbort) signal?.removeEventListener("abort", onAbort);
    if (!finished) void Promise.resolve(iterator.return?.()).catch(() => undefined);
  }
}

export async function runModelStep(model: ChatModel, request: ModelRequest, hooks: StepHooks = {}): Promise<StepResult> {
  const result: StepResult = { text: "", thinking: "", toolCalls: [], usage: { inputTokens: 0, outputTokens: 0 }, finishReason: "stop" };
  let reported: Usage | null = null;
  throwIfAborted(request.signal);
  try {
    for await (const event of abortable(model.stream(request), request.signal)) {
      // Model output enters here: normalised once (see wellFormed), so every later holder agrees.
      if (event.type === "text") {
        const text = wellFormed(event.text);
        result.text += text;
        hooks.onText?.(text);
      } else if (event.type === "thinking") {
        const text = wellFormed(event.text);
        result.thinking += text;
        hooks.onThinking?.(text);
      } else if (event.type === "tool_call") {
        const call = { ...event.call, name: wellFormed(event.call.name), arguments: wellFormed(event.call.arguments) };
        result.toolCalls.push(call);
        hooks.onToolCall?.(call);
      } else if (event.type === "usage") {
        reported = { inputTokens: event.inputTokens, outputTokens: event.outputTokens };
      } else if (event.type === "done") {
        result.finishReason = event.finishReason;
      }
    }
  } catch (error) {
    if (request.signal?.aborted) throw new AbortedError(request.signal.reason);
    throw error;
  }
  throwIfAborted(request.signal);
  result.usage = reported ?? {
    inputTokens: estimateRequestTokens(request.messages, request.tools),
    outputTokens: estimateTokens(result.text + result.thinking) + result.toolCalls.reduce((n, c) => n + estimateTokens(c.arguments) + 4, 0),
  };
  return result;
}

/** A readable sentence for any failure, fit for the chat. */
export function describeError(error: unknown): string {
  if (error instanceof ModelError) return error.message;
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}
