import OpenAI from "openai";
import { ModelError } from "./types";

/**
 * Turns whatever the SDK, fetch or the socket threw into a `ModelError` with a sentence a
 * person can read in the chat. Provider messages are included, cleaned of markup and of
 * anything that looks like a credential, and shortened.
 */
export function toModelError(error: unknown, host: string): ModelError {
  if (error instanceof ModelError) return error;
  const where = `The model server at ${host}`;
  if (error instanceof OpenAI.APIUserAbortError) {
    return new ModelError("aborted", "The model request was cancelled.");
  }
  if (error instanceof OpenAI.APIConnectionTimeoutError) {
    return new ModelError("timeout", `${where} did not answer in time.`);
  }
  if (error instanceof OpenAI.APIConnectionError) {
    return connectionError(error.cause ?? error, host);
  }
  if (error instanceof OpenAI.APIError) {
    const detail = providerMessage(error);
    const said = detail ? `: ${sentence(detail)}` : ".";
    const status = error.status;
    if (status === undefined) {
      // An error object inside the SSE stream: the provider failed mid-answer.
      return new ModelError("server_error", `${where} reported an error while answering${said}`);
    }
    if (status === 401 || status === 403) {
      return new ModelError("unauthorized", `${where} refused the credentials (HTTP ${status})${said} Check the API key.`, status);
    }
    if (status === 429) {
      const message = `${where} is rate limiting requests (HTTP 429)${said}`;
      return new ModelError("rate_limited", message, status, retryAfterMs(error.headers));
    }
    if (status >= 500) {
      return new ModelError("server_error", `${where} had a server error (HTTP ${status})${said}`, status);
    }
    if (status === 404) {
      return new ModelError("bad_request", `${where} does not know this model or endpoint (HTTP 404)${said}`, status);
    }
    return new ModelError("bad_request", `${where} rejected the request (HTTP ${status})${said}`, status);
  }
  if (error instanceof SyntaxError) {
    return new ModelError("malformed_output", `${where} streamed data that is not valid JSON.`);
  }
  return connectionError(error, host);
}

/** Socket-level failures: refused and unresolvable hosts are "unreachable"; drops are "stream_cut". */
function connectionError(error: unknown, host: string): ModelError {
  const where = `the model server at ${host}`;
  const code = errorCode(error);
  if (code === "ECONNREFUSED") {
    return new ModelError("unreachable", `Could not reach ${where}: connection refused. Is the server running?`);
  }
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") {
    return new ModelError("unreachable", `Could not reach ${where}: the host name does not resolve.`);
  }
  if (code === "ETIMEDOUT" || code === "UND_ERR_CONNECT_TIMEOUT") {
    return new ModelError("timeout", `Connecting to ${where} timed out.`);
  }
  if (code === "EHOSTUNREACH" || code === "ENETUNREACH" || code === "CERT_HAS_EXPIRED" || code?.startsWith("ERR_TLS")) {
    return new ModelError("unreachable", `Could not reach ${where} (${code}).`);
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ModelError("stream_cut", `The connection to ${where} dropped (${code ?? (clean(message) || "unknown error")}).`);
}

/** Walks `cause` chains: undici wraps the socket error as `TypeError: fetch failed`. */
export function errorCode(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string") return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Retry-After as milliseconds: `retry-after-ms`, seconds, or an HTTP date. */
export function retryAfterMs(headers: Headers | undefined): number | undefined {
  const ms = headers?.get("retry-after-ms");
  if (ms && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const value = headers?.get("retry-after");
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Math.round(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function providerMessage(error: InstanceType<typeof OpenAI.APIError>): string {
  const body = error.error as { message?: unknown } | string | undefined;
  const raw =
    typeof body === "string"
      ? body
      : typeof body?.message === "string"
        ? body.message
        : body
          ? JSON.stringify(body)
          : // Non-JSON bodies (proxy error pages) land in the SDK's own message after the status.
            error.message.replace(/^\d{3}\s*/, "").replace(/^status code \(no body\)$/, "");
  return clean(raw);
}

const TAGS = /<[^>]*>/g;
// Provider key formats (sk-…, sk-or-v1-…) and bearer tokens some proxies echo back.
const SECRETS = /\b(?:sk|pk|rk)-[A-Za-z0-9*_-]{6,}|\bbearer\s+\S+/gi;
const SPACE = /\s+/g;

function sentence(text: string): string {
  return /[.!?…]$/.test(text) ? text : `${text}.`;
}

function clean(text: string): string {
  const flat = text.replace(TAGS, " ").replace(SECRETS, "[redacted]").replace(SPACE, " ").trim();
  return flat.length > 300 ? `${flat.slice(0, 300)}…` : flat;
}
