import type { IncomingMessage, ServerResponse } from "node:http";
import { AppError } from "@/lib/contracts";
import type { SessionService } from "@/server/sessions/session-service";
import type { SessionExport } from "@/server/export/session-export";
import { closeUnread, readBody } from "./body";
import { originAllowed } from "./origin";
import type { Logger } from "@/lib/log";
import { errorAnswer } from "./error-answer";

/**
 * The HTTP API (JSON), served by the custom server before Next sees the request. Only
 * what something uses: the health check (scripts, probes), the whole text of one tool
 * output ("Show all", too large to travel in events) and the model-call records (each
 * request as sent, for the context inspector). Everything else a browser does goes
 * over the socket; both doors call the same session service, which checks ownership.
 */

export interface ApiDeps {
  sessions: SessionService;
  /** Largest session file an import accepts (IMPORT_MAX_MB). */
  importMaxBytes?: number;
  /** How long an import's upload may take to arrive whole (IMPORT_BODY_TIMEOUT_MS). */
  importBodyTimeoutMs?: number;
  allowedOrigins: readonly string[];
  dbUp: () => Promise<boolean> | boolean;
  log?: Pick<Logger, "error">;
  /** Which process answered and its Redis (so a load balancer's processes can be told apart); absent: not reported. */
  instance?: () => { instance: string; redis: "up" | "down" | "off" };
}

const OUTPUT_PATH = /^\/api\/sessions\/([A-Za-z0-9_-]{1,64})\/tool-calls\/([^/]{1,200})$/;
const EXPORT_PATH = /^\/api\/sessions\/([A-Za-z0-9_-]{1,64})\/export$/;
const IMPORT_PATH = "/api/sessions/import";
export const DEFAULT_IMPORT_MAX_BYTES = 100 * 1024 * 1024;
const DEFAULT_IMPORT_BODY_TIMEOUT_MS = 60_000;
const MODEL_CALLS_PATH = /^\/api\/sessions\/([A-Za-z0-9_-]{1,64})\/model-calls$/;
const MODEL_CALL_PATH = /^\/api\/sessions\/([A-Za-z0-9_-]{1,64})\/model-calls\/([A-Za-z0-9_-]{1,100})$/;

/** Handles `/api/*`; returns false for any other path. */
export async function handleApi(req: IncomingMessage, res: ServerResponse, userId: string, deps: ApiDeps): Promise<boolean> {
  const url = new URL(req.url ?? "/", "http://local");
  if (!url.pathname.startsWith("/api/")) return false;
  const method = req.method ?? "GET";
  try {
    if (method !== "GET" && method !== "HEAD" && !originAllowed(req, deps.allowedOrigins)) {
      throw new AppError("unauthorized", "Cross-site requests are not allowed.");
    }
    if (url.pathname === IMPORT_PATH && method === "POST") {
      const text = await readBody(
        req,
        deps.importMaxBytes ?? DEFAULT_IMPORT_MAX_BYTES,
        deps.importBodyTimeoutMs ?? DEFAULT_IMPORT_BODY_TIMEOUT_MS,
      );
      // Checking and storing a large file may take longer than the idle timeout with nothing sent.
      res.setTimeout(0);
      send(res, 200, { session: await deps.sessions.import(userId, text) });
      return true;
    }
    // No other route reads a body: drain it so the connection is not left hanging.
    req.resume();
    const exportMatch = EXPORT_PATH.exec(url.pathname);
    if (exportMatch && method === "GET") {
      const format = url.searchParams.get("format") ?? "json";
      if (format !== "json" && format !== "markdown") throw new AppError("bad_request", "Ask for ?format=json or ?format=markdown.");
      const markup = url.searchParams.get("markup") === "1";
      await streamDownload(res, await deps.sessions.export(userId, exportMatch[1]!, format, { markup }), deps.log);
      return true;
    }
    const result = await route(method, url, userId, deps);
    if (result === undefined) throw new AppError("not_found", "No such API route.");
    send(res, 200, result);
  } catch (error) {
    const { status, body } = errorAnswer(error, "api", url.pathname, deps.log);
    closeUnread(req, res);
    send(res, status, body);
  }
  return true;
}

async function route(method: string, url: URL, userId: string, deps: ApiDeps): Promise<unknown> {
  const { pathname } = url;
  if (pathname === "/api/health" && method === "GET")
    return { ok: true, database: (await deps.dbUp()) ? "up" : "down", ...deps.instance?.() };
  const outputMatch = OUTPUT_PATH.exec(pathname);
  if (outputMatch && method === "GET") {
    const turnId = url.searchParams.get("turn") ?? undefined;
    const runId = url.searchParams.get("run") || null;
    return { response: await deps.sessions.toolOutput(userId, outputMatch[1]!, decodePathPart(outputMatch[2]!), { turnId, runId }) };
  }
  const callsMatch = MODEL_CALLS_PATH.exec(pathname);
  if (callsMatch && method === "GET") {
    const turnId = url.searchParams.get("turn");
    if (!turnId || !/^[A-Za-z0-9_-]{1,100}$/.test(turnId)) throw new AppError("bad_request", "Name the turn: ?turn=<turn id>.");
    return { calls: await deps.sessions.modelCalls(userId, callsMatch[1]!, turnId) };
  }
  const callMatch = MODEL_CALL_PATH.exec(pathname);
  if (callMatch && method === "GET") return { call: await deps.sessions.modelCall(userId, callMatch[1]!, callMatch[2]!) };
  return undefined;
}

function decodePathPart(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw new AppError("bad_request", "The tool call id in the address is not valid percent-encoding.");
  }
}

/**
 * Writes a download piece by piece, waiting whenever the socket's buffer is full, so a
 * large export is never held whole in memory. A failure after the first byte cannot
 * become an error answer any more: the response is cut, and the browser reports a
 * failed download instead of saving half a file as if it were whole.
 */
async function streamDownload(res: ServerResponse, download: SessionExport, log: ApiDeps["log"]): Promise<void> {
  const iterator = download.chunks[Symbol.asyncIterator]();
  // The first piece is read before the headers, so an early failure is still a clean error.
  const first = await iterator.next();
  res.writeHead(200, {
    "content-type": download.contentType,
    "content-disposition": `attachment; filename="${download.filename}"`,
    "cache-control": "no-store",
  });
  try {
    for (let next = first; !next.done; next = await iterator.next()) {
      if (res.destroyed) break;
      if (!res.write(next.value))
        await new Promise<void>((resolve) => {
          const done = () => {
            res.off("drain", done);
            res.off("close", done);
            resolve();
          };
          res.once("drain", done);
          res.once("close", done);
        });
    }
    res.end();
  } catch (error) {
    log?.error("export failed part way; the download was cut", { error: error instanceof Error ? error.stack : String(error) });
    res.destroy();
  } finally {
    await iterator.return?.(undefined);
  }
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" });
  res.end(text);
}
