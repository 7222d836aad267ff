import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import { AddressRefusedError, checkedTarget, normalizeHost, pinnedLookup } from "@/lib/tools/checked-target";

export { AddressRefusedError } from "@/lib/tools/checked-target";

export interface GuardedFetchOptions {
  /** Hosts exempt from the address checks, as written in URLs ("127.0.0.1" in tests, an operator's own hosts). */
  allowHosts?: readonly string[];
  /** Until the response's headers arrive, redirects included; a streamed body is bounded by `maxBytes` and the caller's signal, not by time. */
  timeoutMs?: number;
  /** Most bytes of one response body; past it the body errors with `ResponseTooLargeError`. */
  maxBytes?: number;
  /** Redirects followed (each hop checked like the first); past it the fetch fails. */
  maxRedirects?: number;
  /** Only https, except for hosts in `allowHosts` (a test's loopback server). */
  httpsOnly?: boolean;
}

export class ResponseTooLargeError extends Error {
  override name = "ResponseTooLargeError";
  constructor(readonly maxBytes: number) {
    super(`the response was larger than ${Math.round((maxBytes / 2 ** 20) * 10) / 10} MB`);
  }
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const DEFAULT_TIMEOUT_MS = 15_000;
const DEFAULT_MAX_BYTES = 4 * 2 ** 20;
const DEFAULT_MAX_REDIRECTS = 5;

/**
 * A `fetch` for requests whose address comes from someone other than the operator (a
 * person's agent card, an MCP server's OAuth metadata, a browser's push endpoint): every
 * hop, redirects included, is resolved and checked against the address policy and the
 * connection is pinned to the checked address, as url_fetch does; credentials in the
 * `authorization` header never follow a redirect to another origin; the body streams (so
 * server-sent events work) but is cut at `maxBytes`. Refusals reject with
 * `AddressRefusedError`, which says which host and why.
 */
export function guardedFetch(options: GuardedFetchOptions = {}): typeof fetch {
  const allowed = new Set((options.allowHosts ?? []).map(normalizeHost));
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;

  return async (input, init) => {
    const request = new Request(input, init);
    const body = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
    let method = request.method;
    let url = new URL(request.url);
    const headers = new Headers(request.headers);
    const origin = url.origin;

    // An explicit timer, not AbortSignal.timeout(): a timeout signal held only by
    // AbortSignal.any() can be garbage-collected before it fires, leaving a hung fetch.
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new Error(`${url.host} did not answer within ${timeoutMs / 1000} s`)), timeoutMs);
    const signal = AbortSignal.any([request.signal, deadline.signal]);
    try {
      for (let hop = 0; ; hop++) {
        checkScheme(url, allowed, options.httpsOnly ?? false);
        const target = await checkedTarget(url, allowed, signal);
        const response = await send(
          url,
          method,
          headers,
          method === "GET" || method === "HEAD" ? undefined : body,
          pinnedLookup(target),
          signal,
        );
        const location = response.headers.location;
        if (!REDIRECTS.has(response.statusCode ?? 0) || !location || request.redirect === "manual") {
          clearTimeout(timer);
          return toResponse(response, url, maxBytes, request.signal);
        }
        response.resume();
        if (request.redirect === "error") throw new TypeError(`${url.href} redirected, and redirects were refused`);
        if (hop >= maxRedirects) throw new TypeError(`${request.url} redirected more than ${maxRedirects} times`);
        url = new URL(location, url);
        if (response.statusCode === 303 || ((response.statusCode === 301 || response.statusCode === 302) && method === "POST")) {
          method = "GET";
        }
        if (url.origin !== origin) {
          headers.delete("authorization");
          headers.delete("cookie");
        }
      }
    } catch (error) {
      clearTimeout(timer);
      if (error instanceof AddressRefusedError) throw error;
      if (deadline.signal.aborted && !request.signal.aborted) throw deadline.signal.reason;
      throw error;
    }
  };
}

function checkScheme(url: URL, allowed: ReadonlySet<string>, httpsOnly: boolean): void {
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new AddressRefusedError(`${url.protocol} URLs are refused`);
  if (url.username || url.password) throw new AddressRefusedError("URLs carrying a user name or password are refused");
  if (httpsOnly && url.protocol === "http:" && !allowed.has(normalizeHost(url.hostname))) {
    throw new AddressRefusedError(`${url.host} must be reached over https`);
  }
}

function send(
  url: URL,
  method: string,
  headers: Headers,
  body: Buffer | undefined,
  lookup: ReturnType<typeof pinnedLookup>,
  signal: AbortSignal,
): Promise<IncomingMessage> {
  const client = url.protocol === "https:" ? https : http;
  const outgoing: Record<string, string> = {};
  headers.forEach((value, name) => (outgoing[name] = value));
  if (body) outgoing["content-length"] = String(body.length);
  return new Promise((resolve, reject) => {
    const request = client.request(url, { method, agent: false, lookup, signal, headers: outgoing }, resolve);
    request.on("error", reject);
    request.end(body);
  });
}

function toResponse(message: IncomingMessage, url: URL, maxBytes: number, signal: AbortSignal): Response {
  // A web stream of our own rather than Readable.toWeb: that adapter can enqueue a chunk
  // after its reader cancelled, which throws (ERR_INVALID_STATE) where nobody catches it.
  let size = 0;
  let settled = false;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      const fail = (error: Error) => {
        message.destroy();
        if (settled) return;
        settled = true;
        controller.error(error);
      };
      message.on("data", (chunk: Buffer) => {
        if (settled) return;
        size += chunk.length;
        if (size > maxBytes) return fail(new ResponseTooLargeError(maxBytes));
        controller.enqueue(new Uint8Array(chunk));
        if ((controller.desiredSize ?? 0) <= 0) message.pause();
      });
      message.on("end", () => {
        if (settled) return;
        settled = true;
        controller.close();
      });
      message.on("error", fail);
      // A reader waiting on a silent stream would wait forever: the body fails with the abort, as fetch's does.
      signal.addEventListener("abort", () => fail(signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason))), {
        once: true,
      });
    },
    pull() {
      message.resume();
    },
    cancel() {
      settled = true;
      message.destroy();
    },
  });

  const headers = new Headers();
  for (const [name, value] of Object.entries(message.headers)) {
    if (Array.isArray(value)) for (const one of value) headers.append(name, one);
    else if (value !== undefined) headers.set(name, value);
  }
  const status = message.statusCode ?? 502;
  const nullBody = status === 204 || status === 205 || status === 304;
  const response = new Response(nullBody ? null : body, {
    status,
    statusText: message.statusMessage,
    headers,
  });
  Object.defineProperty(response, "url", { value: url.href });
  return response;
}
