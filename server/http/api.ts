import type { IncomingMessage, ServerResponse } from "node:http";
import { z } from "zod";
import { AppError, describeIssues, sessionCreateSchema, sessionRenameSchema, type ErrorCode } from "@/lib/contracts";
import { createSession, listSessions, renameSession } from "@/server/data/sessions";
import { loadFullToolOutput } from "@/server/data/tool-output";
import { toAppError } from "@/server/errors";
import type { SessionRegistry } from "@/server/sessions/registry";
import { readBody } from "./body";
import { originAllowed } from "./origin";

/**
 * The HTTP API (JSON), served by the custom server before Next sees the request. Every
 * route acts only on the caller's own sessions; state changes refuse cross-site callers.
 */

const MAX_BODY_BYTES = 1_000_000;
const STATUS: Record<ErrorCode, number> = {
  bad_request: 400,
  unauthorized: 401,
  not_found: 404,
  too_large: 413,
  rate_limited: 429,
  busy: 409,
  unavailable: 503,
  internal: 500,
};

export interface ApiDeps {
  registry: SessionRegistry;
  allowedOrigins: readonly string[];
  onSessionsChanged: (userId: string) => void;
  dbUp: () => boolean;
  log?: { error(msg: string, meta?: object): void };
}

const renameBody = sessionRenameSchema.omit({ sessionId: true });
const SESSION_PATH = /^\/api\/sessions\/([A-Za-z0-9_-]{1,64})$/;
const OUTPUT_PATH = /^\/api\/sessions\/([A-Za-z0-9_-]{1,64})\/tool-calls\/([^/]{1,200})$/;

/** Handles `/api/*`; returns false for any other path. */
export async function handleApi(req: IncomingMessage, res: ServerResponse, userId: string, deps: ApiDeps): Promise<boolean> {
  const url = new URL(req.url ?? "/", "http://local");
  if (!url.pathname.startsWith("/api/")) return false;
  const method = req.method ?? "GET";
  try {
    if (method !== "GET" && method !== "HEAD" && !originAllowed(req, deps.allowedOrigins)) {
      throw new AppError("unauthorized", "Cross-site requests are not allowed.");
    }
    const result = await route(method, url, req, userId, deps);
    if (result === undefined) throw new AppError("not_found", "No such API route.");
    send(res, 200, result);
  } catch (error) {
    const known = toAppError(error);
    if (!known) deps.log?.error("api request failed", { path: url.pathname, error: error instanceof Error ? error.stack : String(error) });
    const appError = known ?? new AppError("internal", "Something went wrong on the server; nothing was changed.");
    send(res, STATUS[appError.code], { error: { code: appError.code, message: appError.message, ...(appError.issues ? { issues: appError.issues } : {}) } });
  }
  return true;
}

async function route(method: string, url: URL, req: IncomingMessage, userId: string, deps: ApiDeps): Promise<unknown> {
  const { pathname } = url;
  if (pathname === "/api/health" && method === "GET") return { ok: true, database: deps.dbUp() ? "up" : "down" };
  if (pathname === "/api/sessions") {
    if (method === "GET") return listSessions(userId);
    if (method === "POST") {
      const body = parse(sessionCreateSchema, await readJson(req));
      const session = await createSession(userId, body.title);
      deps.onSessionsChanged(userId);
      return session;
    }
  }
  const sessionMatch = SESSION_PATH.exec(pathname);
  if (sessionMatch) {
    const sessionId = sessionMatch[1]!;
    if (method === "GET") {
      const session = await deps.registry.get(userId, sessionId);
      return session.join(undefined);
    }
    if (method === "PATCH") {
      const { title } = parse(renameBody, await readJson(req));
      const session = await renameSession(userId, sessionId, title);
      (await deps.registry.peek(sessionId))?.setTitle(title);
      deps.onSessionsChanged(userId);
      return session;
    }
    if (method === "DELETE") {
      await deps.registry.remove(userId, sessionId);
      deps.onSessionsChanged(userId);
      return { sessionId };
    }
  }
  const outputMatch = OUTPUT_PATH.exec(pathname);
  if (outputMatch && method === "GET") {
    const sessionId = outputMatch[1]!;
    await deps.registry.get(userId, sessionId);
    const turnId = url.searchParams.get("turn") ?? undefined;
    const runId = url.searchParams.get("run") || null;
    return { response: await loadFullToolOutput(sessionId, decodePathPart(outputMatch[2]!), { turnId, runId }) };
  }
  return undefined;
}

function decodePathPart(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw new AppError("bad_request", "The tool call id in the address is not valid percent-encoding.");
  }
}

function parse<T>(schema: z.ZodType<T>, value: unknown): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues = describeIssues(result.error.issues);
  throw new AppError("bad_request", `Invalid request: ${issues[0]?.path ?? ""} ${issues[0]?.message ?? ""}`.trim(), issues);
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const type = req.headers["content-type"] ?? "";
  // Requiring JSON also keeps HTML forms (which cannot send it) from posting cross-site.
  if (!type.toLowerCase().startsWith("application/json")) {
    req.resume();
    throw new AppError("bad_request", "Send a JSON body (Content-Type: application/json).");
  }
  const text = await readBody(req, MAX_BODY_BYTES);
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new AppError("bad_request", "The request body is not valid JSON.");
  }
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", "x-content-type-options": "nosniff" });
  res.end(text);
}
