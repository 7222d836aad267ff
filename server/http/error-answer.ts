import { AppError, type ErrorCode } from "@/lib/contracts";
import { toAppError } from "@/server/errors";
import type { Logger } from "@/lib/log";
import { BodyTimeoutError } from "./body";
import { httpStatusOf } from "./error-status";

export interface ErrorAnswer {
  status: number;
  body: { error: { code: ErrorCode; message: string; issues?: AppError["issues"] } };
}

/**
 * What an HTTP route answers for a thrown value: a known error's code, message and field
 * issues, with its status (408 for a body that came too slowly). Anything else is logged
 * with its stack, `what` naming the routes that failed, and answered as a generic internal
 * error, so no detail of the server reaches the client.
 */
export function errorAnswer(error: unknown, what: string, path: string, log?: Pick<Logger, "error">): ErrorAnswer {
  const known = toAppError(error);
  if (!known) log?.error(`${what} request failed`, { path, error: error instanceof Error ? error.stack : String(error) });
  const e = known ?? new AppError("internal", "Something went wrong on the server; nothing was changed.");
  return {
    status: error instanceof BodyTimeoutError ? 408 : httpStatusOf(e.code),
    body: { error: { code: e.code, message: e.message, ...(e.issues ? { issues: e.issues } : {}) } },
  };
}
