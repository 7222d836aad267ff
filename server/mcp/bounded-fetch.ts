import { AsyncLocalStorage } from "node:async_hooks";
import { withTraceContext } from "@/server/telemetry/propagate";
import { STDIO_DEFAULT_MAX_BUFFER_SIZE } from "@modelcontextprotocol/sdk/shared/stdio.js";

/**
 * Bounds on MCP over HTTP, as the SDK's stdio transport has them: one message may be at
 * most MAX_MESSAGE_BYTES (the stdio read buffer's limit), counted as the response body
 * streams in, so a reply past it is cut there instead of being read whole into memory;
 * and every HTTP request a call made is aborted when the call ends without its answer
 * (timeout, stop, too large), which closes its connection instead of reading on.
 */
export const MAX_MESSAGE_BYTES = STDIO_DEFAULT_MAX_BUFFER_SIZE;

export class ReplyTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`reply larger than ${megabytes(maxBytes)}`);
  }
}

export function megabytes(bytes: number): string {
  return `${Math.round((bytes / 2 ** 20) * 10) / 10} MB`;
}

/** The HTTP requests of one tool call: a failure in any of them fails the call, and `abort` ends them all. */
export class CallScope {
  private readonly controller = new AbortController();
  readonly signal = this.controller.signal;
  failure: Error | undefined;
  /** Rejects with the failure of one of the call's requests (it never resolves). */
  readonly failed: Promise<never>;
  private rejectFailed: (error: Error) => void = () => undefined;

  constructor() {
    this.failed = new Promise<never>((_, reject) => (this.rejectFailed = reject));
    this.failed.catch(() => undefined);
  }

  fail(error: Error): void {
    if (this.failure) return;
    this.failure = error;
    this.rejectFailed(error);
    this.abort();
  }

  abort(): void {
    if (!this.signal.aborted) this.controller.abort(this.failure ?? new Error("the call ended"));
  }

  /** Runs `fn` so that the requests the SDK sends on its behalf belong to this call. */
  run<T>(fn: () => Promise<T>): Promise<T> {
    return scopes.run(this, fn);
  }
}

// The SDK sends a call's request from inside `client.request`, so the call's async context reaches our fetch.
const scopes = new AsyncLocalStorage<CallScope>();

/** A fetch for the SDK's HTTP transport that counts each message's bytes and ties a call's requests to its scope. */
export function boundedFetch(maxBytes = MAX_MESSAGE_BYTES, base: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const scope = scopes.getStore();
    // The call's own request and a resumed stream of it; not the cancellation notice sent when it is given up.
    const bound = scope && carriesCall(init) ? scope : undefined;
    const signal = bound ? (init?.signal ? AbortSignal.any([init.signal, bound.signal]) : bound.signal) : init?.signal;
    // A traced turn's tool call carries its trace to the MCP server (a no-op when tracing is off).
    const response = await base(input, { ...withTraceContext(init), signal });
    if (!response.body || [204, 205, 304].includes(response.status)) return response;
    const eventStream = (response.headers.get("content-type") ?? "").toLowerCase().startsWith("text/event-stream");
    const counted = response.body.pipeThrough(countBytes(maxBytes, eventStream, (error) => bound?.fail(error)));
    return new Response(counted, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

function carriesCall(init: RequestInit | undefined): boolean {
  const method = (init?.method ?? "GET").toUpperCase();
  if (method === "GET") return true;
  if (method !== "POST" || typeof init?.body !== "string") return false;
  try {
    const message: unknown = JSON.parse(init.body);
    return typeof message === "object" && message !== null && "method" in message && "id" in message;
  } catch {
    return false;
  }
}

const LF = 10;
const CR = 13;

/**
 * Errors the body once one message passes `maxBytes`: a JSON body is one message; an
 * event stream carries one per event, so there the count starts again at each blank line
 * (a line ending right after another, with LF, CRLF or CR as the SSE format allows).
 */
function countBytes(maxBytes: number, perEvent: boolean, onOver: (error: Error) => void): TransformStream<Uint8Array, Uint8Array> {
  let size = 0;
  let atLineStart = true;
  let afterCR = false;
  return new TransformStream({
    transform(chunk, controller) {
      if (!perEvent) {
        size += chunk.byteLength;
      } else {
        for (let i = 0; i < chunk.length; i++) {
          const byte = chunk[i];
          if (byte === LF && afterCR) {
            afterCR = false;
            continue;
          }
          if (byte === LF || byte === CR) {
            if (atLineStart) size = 0;
            else size++;
            atLineStart = true;
            afterCR = byte === CR;
            continue;
          }
          atLineStart = afterCR = false;
          if (++size > maxBytes) break;
        }
      }
      if (size > maxBytes) {
        const error = new ReplyTooLargeError(maxBytes);
        onOver(error);
        controller.error(error);
        return;
      }
      controller.enqueue(chunk);
    },
  });
}
