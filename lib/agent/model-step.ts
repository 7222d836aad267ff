import { wellFormed, type Usage } from "@/lib/contracts";
import { estimateRequestTokens, estimateTokens } from "@/lib/context/tokens";
import { ModelError, type ChatModel, type ModelRequest, type ModelToolCall } from "@/lib/model/types";

/**
 * One model request, streamed to completion. Usage comes from the provider when it reports
 * it, else from the estimator — every request is counted either way.
 */

export interface StepHooks {
  /** `offset`: where `text` starts in the step's text (its reasoning, for onThinking). */
  onText?(text: string, offset: number): void;
  onThinking?(text: string, offset: number): void;
  onToolCall?(call: ModelToolCall): void;
}

export interface StepResult {
  text: string;
  thinking: string;
  /** The calls kept: at most the request's maxToolCalls. */
  toolCalls: ModelToolCall[];
  /** How many tool calls the reply asked for, kept or not. */
  toolCallsAsked: number;
  usage: Usage;
  finishReason: "stop" | "tool_calls" | "length" | "other";
}

/** The longest a step reads buffered events before it lets the event loop run other work. */
const YIELD_AFTER_MS = 10;

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
 * One request, read to its end: each event the model streams is taken here straight from
 * its iterator (and shown to the request's observer, if any). It gives up as soon as the
 * signal aborts, even if the model never yields again: a hung provider must not keep a
 * killed or timed-out run alive.
 */
export async function runModelStep(model: ChatModel, request: ModelRequest, hooks: StepHooks = {}): Promise<StepResult> {
  const result: StepResult = {
    text: "",
    thinking: "",
    toolCalls: [],
    toolCallsAsked: 0,
    usage: { inputTokens: 0, outputTokens: 0 },
    finishReason: "stop",
  };
  let reported: Usage | null = null;
  const keep = request.maxToolCalls ?? Infinity;
  let callTokens = 0;
  let busySince = performance.now();
  let events = 0;
  throwIfAborted(request.signal);
  const observer = model.observe?.(request);
  const iterator = model.stream(request)[Symbol.asyncIterator]();
  const stop = stopOn(request.signal);
  let finished = false;
  let failure: unknown;
  try {
    while (true) {
      const next = await Promise.race([iterator.next(), stop.aborted]);
      if (next.done) break;
      const event = next.value;
      // Events already buffered arrive as microtasks, which nothing else can run between:
      // a long reply read from a buffer takes turns with other people's requests.
      if (++events % 64 === 0 && performance.now() - busySince > YIELD_AFTER_MS) {
        await new Promise((resolve) => setImmediate(resolve));
        busySince = performance.now();
      }
      observer?.event(event);
      // Model output enters here: normalised once (see wellFormed), so every later holder agrees.
      if (event.type === "text") {
        const text = wellFormed(event.text);
        hooks.onText?.(text, result.text.length);
        result.text += text;
      } else if (event.type === "thinking") {
        const text = wellFormed(event.text);
        hooks.onThinking?.(text, result.thinking.length);
        result.thinking += text;
      } else if (event.type === "tool_call") {
        result.toolCallsAsked++;
        callTokens += estimateTokens(event.call.arguments) + 4;
        if (result.toolCalls.length >= keep) continue;
        const call = { ...event.call, name: wellFormed(event.call.name), arguments: wellFormed(event.call.arguments) };
        result.toolCalls.push(call);
        hooks.onToolCall?.(call);
      } else if (event.type === "usage") {
        reported = { inputTokens: event.inputTokens, outputTokens: event.outputTokens };
      } else if (event.type === "done") {
        result.finishReason = event.finishReason;
      }
    }
    finished = true;
  } catch (error) {
    failure = error;
    if (request.signal?.aborted) throw new AbortedError(request.signal.reason);
    throw error;
  } finally {
    stop.dispose();
    if (!finished) void Promise.resolve(iterator.return?.()).catch(() => undefined);
    observer?.end(failure);
  }
  throwIfAborted(request.signal);
  result.usage = reported ?? {
    inputTokens: estimateRequestTokens(request.messages, request.tools),
    outputTokens: estimateTokens(result.text + result.thinking) + callTokens,
  };
  return result;
}

/** A promise that rejects with an AbortedError when `signal` aborts (never settles otherwise), and its cleanup. */
function stopOn(signal: AbortSignal | undefined): { aborted: Promise<never>; dispose: () => void } {
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(new AbortedError(signal?.reason));
    if (signal?.aborted) onAbort();
    else signal?.addEventListener("abort", onAbort, { once: true });
  });
  aborted.catch(() => undefined);
  return { aborted, dispose: () => onAbort && signal?.removeEventListener("abort", onAbort) };
}

/** A readable sentence for any failure, fit for the chat. */
export function describeError(error: unknown): string {
  if (error instanceof ModelError) return error.message;
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}
