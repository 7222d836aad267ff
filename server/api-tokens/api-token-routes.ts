import type { IncomingMessage, ServerResponse } from "node:http";
import { API_TOKEN_ROUTES, AppError, apiTokenCreateSchema, describeIssues } from "@/lib/contracts";
import type { Logger } from "@/lib/log";
import { readBody } from "@/server/http/body";
import { errorAnswer } from "@/server/http/error-answer";
import { originAllowed } from "@/server/http/origin";
import type { Limiter } from "@/server/limiter-store";
import type { ApiTokenService } from "./api-token-service";

/**
 * A person's API tokens over HTTP, behind the app's sign-in like the rest of the API:
 *
 *   GET  /api/tokens               list (no secrets)
 *   POST /api/tokens               create { name, scope? }: the secret, this once
 *   POST /api/tokens/<id>/revoke   revoke
 *
 * A change needs a same-origin request, and creating is counted per person (`creations`).
 */
export interface ApiTokenHttpDeps {
  tokens: ApiTokenService;
  allowedOrigins: readonly string[];
  /** Token creations per person; absent: uncounted. */
  creations?: Pick<Limiter, "consume">;
  log?: Pick<Logger, "error">;
}

const MAX_BODY_BYTES = 4_000;
const REVOKE_PATH = /^\/api\/tokens\/([A-Za-z0-9_-]{1,64})\/revoke$/;

/** Answers `/api/tokens…`; false for any other path. */
export async function handleApiTokenApi(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  userId: string,
  deps: ApiTokenHttpDeps,
): Promise<boolean> {
  const list = url.pathname === API_TOKEN_ROUTES.list;
  const revoke = REVOKE_PATH.exec(url.pathname);
  if (!list && !revoke && !url.pathname.startsWith(`${API_TOKEN_ROUTES.list}/`)) return false;
  const method = req.method ?? "GET";
  let status = 200;
  let result: unknown;
  try {
    if (method !== "GET" && !originAllowed(req, deps.allowedOrigins))
      throw new AppError("unauthorized", "Cross-site requests are not allowed.");
    if (list && method === "POST") {
      // Counted once the body is good: a typo costs the person nothing.
      const input = await body(req);
      await countCreation(deps, userId);
      result = await deps.tokens.create(userId, input);
    } else {
      req.resume();
      if (list && method === "GET") result = { tokens: await deps.tokens.list(userId) };
      else if (revoke && method === "POST") result = { token: await deps.tokens.revoke(userId, revoke[1]!) };
      else throw new AppError("not_found", "No such API route.");
    }
  } catch (error) {
    ({ status, body: result } = errorAnswer(error, "tokens", url.pathname, deps.log));
    if (!req.complete) res.setHeader("connection", "close");
  }
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" });
  res.end(JSON.stringify(result));
  return true;
}

async function countCreation(deps: ApiTokenHttpDeps, userId: string): Promise<void> {
  if (!deps.creations) return;
  try {
    await deps.creations.consume(userId);
  } catch {
    throw new AppError("rate_limited", "Too many tokens made in a short time; wait a minute and try again.");
  }
}

async function body(req: IncomingMessage) {
  const text = await readBody(req, MAX_BODY_BYTES);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new AppError("bad_request", 'Send JSON like {"name": "my agent", "scope": "a2a"}.');
  }
  const parsed = apiTokenCreateSchema.safeParse(raw);
  if (!parsed.success) {
    const issues = describeIssues(parsed.error.issues);
    throw new AppError("bad_request", `Invalid token: ${issues[0]?.path ?? ""} ${issues[0]?.message ?? ""}`.trim(), issues);
  }
  return parsed.data;
}
