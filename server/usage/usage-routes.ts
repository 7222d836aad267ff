import type { IncomingMessage, ServerResponse } from "node:http";
import { AppError, describeIssues, USAGE_ROUTE, usageQuerySchema } from "@/lib/contracts";
import type { Logger } from "@/lib/log";
import { errorAnswer } from "@/server/http/error-answer";
import type { UsageService } from "./usage-service";

/**
 * The usage report over HTTP, behind the app's sign-in like the rest of the API:
 *
 *   GET /api/usage?from=YYYY-MM-DD&to=YYYY-MM-DD[&person=<id>]
 *
 * The query is checked by its contract (lib/contracts/usage.ts); the service decides
 * whose usage the asker may see.
 */
export interface UsageHttpDeps {
  usage: UsageService;
  log?: Pick<Logger, "error">;
}

/** Answers `/api/usage`; false for any other path. */
export async function handleUsageApi(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  userId: string,
  deps: UsageHttpDeps,
): Promise<boolean> {
  if (url.pathname !== USAGE_ROUTE) return false;
  req.resume();
  let status = 200;
  let result: unknown;
  try {
    if (req.method !== "GET") throw new AppError("not_found", "No such API route.");
    const parsed = usageQuerySchema.safeParse(Object.fromEntries(url.searchParams));
    if (!parsed.success) {
      const issues = describeIssues(parsed.error.issues);
      throw new AppError("bad_request", `Invalid request: ${issues[0]?.path ?? ""} ${issues[0]?.message ?? ""}`.trim(), issues);
    }
    result = await deps.usage.report(userId, parsed.data);
  } catch (error) {
    ({ status, body: result } = errorAnswer(error, "usage", url.pathname, deps.log));
  }
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" });
  res.end(JSON.stringify(result));
  return true;
}
