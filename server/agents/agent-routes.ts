import type { IncomingMessage, ServerResponse } from "node:http";
import type { ZodType } from "zod";
import { AGENT_ROUTES, AppError, agentCreateSchema, agentUpdateSchema, describeIssues } from "@/lib/contracts";
import type { Logger } from "@/lib/log";
import { readBody } from "@/server/http/body";
import { originAllowed } from "@/server/http/origin";
import type { AgentService } from "./agent-service";
import { errorAnswer } from "@/server/http/error-answer";

/**
 * Subagent definitions over HTTP, behind the app's sign-in like the rest of the API: the
 * socket's `agent:*` commands as routes, calling the same service (which checks who may
 * see and change what). Bodies are checked by the socket commands' own schemas.
 *
 *   GET    /api/agents[?session=<id>]     list
 *   POST   /api/agents                    create   { definition, shared? }
 *   GET    /api/agents/<id>               one, with every version
 *   PUT    /api/agents/<id>               update   { definition, baseVersion? }
 *   POST   /api/agents/<key>/duplicate    a copy as one's own
 *   DELETE /api/agents/<id>               delete
 */
export interface AgentHttpDeps {
  agents: AgentService;
  allowedOrigins: readonly string[];
  log?: Pick<Logger, "error">;
}

const MAX_BODY_BYTES = 200_000;
const ONE_PATH = /^\/api\/agents\/([A-Za-z0-9_-]{1,64})$/;
const DUPLICATE_PATH = /^\/api\/agents\/([^/]{1,200})\/duplicate$/;

/** Answers `/api/agents…`; false for any other path. */
export async function handleAgentApi(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  userId: string,
  deps: AgentHttpDeps,
): Promise<boolean> {
  const { pathname } = url;
  const list = pathname === AGENT_ROUTES.list;
  const one = ONE_PATH.exec(pathname);
  const duplicate = DUPLICATE_PATH.exec(pathname);
  if (!list && !one && !duplicate) return false;
  const method = req.method ?? "GET";
  await answer(res, url, deps, async () => {
    if (method !== "GET" && !originAllowed(req, deps.allowedOrigins))
      throw new AppError("unauthorized", "Cross-site requests are not allowed.");
    if (list && method === "POST") {
      const input = await body(req, agentCreateSchema);
      return deps.agents.create(userId, input.definition, input.shared);
    }
    if (one && method === "PUT") {
      const input = await body(req, agentUpdateSchema.omit({ id: true }));
      return deps.agents.update(userId, one[1]!, input.definition, input.baseVersion);
    }
    req.resume();
    if (list && method === "GET") return deps.agents.list(userId, url.searchParams.get("session") ?? undefined);
    if (one && method === "GET") return deps.agents.get(userId, one[1]!);
    if (one && method === "DELETE") return deps.agents.delete(userId, one[1]!);
    if (duplicate && method === "POST") return deps.agents.duplicate(userId, decode(duplicate[1]!));
    throw new AppError("not_found", "No such API route.");
  });
  return true;
}

async function body<T>(req: IncomingMessage, schema: ZodType<T>): Promise<T> {
  const text = await readBody(req, MAX_BODY_BYTES);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new AppError("bad_request", 'Send JSON like {"definition": {"name": "reviewer", …}}.');
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issues = describeIssues(parsed.error.issues);
    throw new AppError("bad_request", `Invalid request: ${issues[0]?.path ?? ""} ${issues[0]?.message ?? ""}`.trim(), issues);
  }
  return parsed.data;
}

function decode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw new AppError("bad_request", "The address is not valid percent-encoding.");
  }
}

async function answer(res: ServerResponse, url: URL, deps: AgentHttpDeps, act: () => Promise<unknown>): Promise<void> {
  let status = 200;
  let result: unknown;
  try {
    result = await act();
  } catch (error) {
    ({ status, body: result } = errorAnswer(error, "agents", url.pathname, deps.log));
  }
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" });
  res.end(JSON.stringify(result));
}
