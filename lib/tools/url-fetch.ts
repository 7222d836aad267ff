import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import { z } from "zod";
import { AddressRefusedError, checkedTarget, normalizeHost, pinnedLookup, type CheckedTarget } from "./checked-target";
import { htmlToText } from "./html-text";
import { parseArgs, toolSpec } from "./parse-args";
import { formatBytes } from "./text-files";
import { ToolError, type Tool } from "./types";

export interface UrlFetchOptions {
  /** Hosts exempt from the address checks, exactly as written in the URL (e.g. "127.0.0.1" in tests). */
  allowHosts?: string[];
  /** Whole fetch, redirects included. */
  timeoutMs?: number;
  /** Most bytes of body read; the rest is cut off with a note. */
  maxBytes?: number;
}

export const DEFAULT_FETCH_TIMEOUT_MS = 15_000;
export const DEFAULT_FETCH_MAX_BYTES = 2 * 1024 * 1024;
export const MAX_REDIRECTS = 5;
const MAX_TEXT_CHARS = 100_000;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const TEXTUAL = /^(text\/|application\/(json|xml|xhtml\+xml|javascript|ld\+json|rss\+xml|atom\+xml)|[^;]*\+(json|xml))/i;

const schema = z.object({
  url: z.string().min(1).max(4096).describe("The http:// or https:// address to fetch."),
});
type UrlFetchArgs = z.output<typeof schema>;

/**
 * Fetches a web page as text. Every hop of the request, redirects included, is checked
 * against the address policy after DNS resolution, and the connection goes to exactly
 * the address that was checked, so a name cannot re-resolve to 127.0.0.1 in between.
 */
export function createUrlFetchTool(options: UrlFetchOptions = {}): Tool<UrlFetchArgs> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_FETCH_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? DEFAULT_FETCH_MAX_BYTES;
  const allowed = new Set((options.allowHosts ?? []).map(normalizeHost));

  return {
    spec: toolSpec(
      "url_fetch",
      "Fetch a public web page (http or https) and return its readable text. Local and private network addresses are refused.",
      schema,
    ),
    parse: (args) => parseArgs("url_fetch", schema, args),
    async run(args, context) {
      // An explicit timer, not AbortSignal.timeout(): a timeout signal held only by
      // AbortSignal.any() can be garbage-collected before it fires, leaving a hung fetch.
      const deadline = new AbortController();
      const timer = setTimeout(() => deadline.abort(), timeoutMs);
      const signal = AbortSignal.any([context.signal, deadline.signal]);
      let url = parseUrl(args.url);
      try {
        for (let hop = 0; ; hop++) {
          const target = await checkTarget(url, allowed, signal, hop > 0);
          const response = await get(url, target, signal, maxBytes);
          if (!REDIRECTS.has(response.status) || !response.location) return render(url, response);
          if (hop >= MAX_REDIRECTS) throw new ToolError(`${args.url} redirected more than ${MAX_REDIRECTS} times; giving up.`);
          url = parseUrl(new URL(response.location, url).href);
        }
      } catch (error) {
        if (error instanceof ToolError) throw error;
        if (context.signal.aborted) throw new ToolError("The fetch was cancelled.");
        if (signal.aborted) throw new ToolError(`${url.href} did not answer within ${timeoutMs / 1000} s.`);
        throw new ToolError(`Could not fetch ${url.href}: ${describe(error)}.`);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

function parseUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new ToolError(`"${text}" is not a valid URL; give a full http:// or https:// address.`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ToolError(`Only http and https URLs can be fetched, not ${url.protocol}.`);
  }
  if (url.username || url.password) throw new ToolError("URLs carrying a user name or password are refused.");
  return url;
}

async function checkTarget(url: URL, allowed: Set<string>, signal: AbortSignal, redirected: boolean): Promise<CheckedTarget> {
  try {
    return await checkedTarget(url, allowed, signal);
  } catch (error) {
    if (!(error instanceof AddressRefusedError)) throw error;
    if (error.unresolved) throw new ToolError(`Could not fetch ${url.href}: ${error.message}.`);
    throw new ToolError(
      `${redirected ? `Refused to follow a redirect to ${url.href}` : `Refused to fetch ${url.href}`}: ${error.message}.`,
    );
  }
}

interface Fetched {
  status: number;
  statusText: string;
  location?: string;
  contentType: string;
  body: Buffer;
  truncated: boolean;
}

function get(url: URL, target: CheckedTarget, signal: AbortSignal, maxBytes: number): Promise<Fetched> {
  const client = url.protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.request(
      url,
      {
        method: "GET",
        agent: false,
        lookup: pinnedLookup(target),
        signal,
        headers: {
          "user-agent": "Delegate-url_fetch/0.1 (+self-hosted agent)",
          accept: "text/html,text/plain,application/json;q=0.9,*/*;q=0.5",
          "accept-encoding": "identity",
        },
      },
      (response: IncomingMessage) => {
        const status = response.statusCode ?? 0;
        const base = {
          status,
          statusText: response.statusMessage ?? "",
          contentType: String(response.headers["content-type"] ?? ""),
        };
        if (REDIRECTS.has(status)) {
          response.resume();
          request.destroy();
          return resolve({ ...base, location: response.headers.location, body: Buffer.alloc(0), truncated: false });
        }
        const chunks: Buffer[] = [];
        let size = 0;
        response.on("data", (chunk: Buffer) => {
          const room = maxBytes - size;
          chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
          size += Math.min(chunk.length, room);
          if (chunk.length >= room) {
            request.destroy();
            resolve({ ...base, body: Buffer.concat(chunks), truncated: true });
          }
        });
        response.on("end", () => resolve({ ...base, body: Buffer.concat(chunks), truncated: false }));
        response.on("error", reject);
      },
    );
    request.on("error", reject);
    request.end();
  });
}

function render(url: URL, response: Fetched): string {
  const type = response.contentType.split(";")[0]!.trim().toLowerCase();
  if (response.status >= 400) {
    throw new ToolError(`${url.href} answered HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""}.`);
  }
  if (type ? !TEXTUAL.test(type) : response.body.includes(0)) {
    throw new ToolError(`${url.href} is ${type || "binary data"}, not text; url_fetch only returns text.`);
  }
  const raw = decode(response.body, response.contentType);
  const isHtml = type === "text/html" || type === "application/xhtml+xml" || (!type && /<html[\s>]/i.test(raw));
  const { title, text } = isHtml ? htmlToText(raw) : { title: undefined, text: raw };
  const lines = [`URL: ${url.href}`];
  if (title) lines.push(`Title: ${title}`);
  lines.push("", text.length > MAX_TEXT_CHARS ? `${text.slice(0, MAX_TEXT_CHARS)}…` : text);
  if (text.length > MAX_TEXT_CHARS) lines.push(`[Text cut at ${MAX_TEXT_CHARS} characters.]`);
  if (response.truncated) lines.push(`[Page cut off after ${formatBytes(response.body.length)}.]`);
  return lines.join("\n");
}

function decode(body: Buffer, contentType: string): string {
  const charset = /charset=["']?([\w-]+)/i.exec(contentType)?.[1];
  try {
    return new TextDecoder(charset ?? "utf-8").decode(body);
  } catch {
    return new TextDecoder("utf-8").decode(body);
  }
}

function describe(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (code === "ECONNREFUSED") return "connection refused";
  if (code === "ECONNRESET") return "the connection was reset";
  const tls = typeof code === "string" && (code.startsWith("ERR_TLS") || code.includes("CERT"));
  if (tls) {
    return `the TLS certificate was rejected (${String(code)})`;
  }
  return error instanceof Error ? error.message : String(error);
}
