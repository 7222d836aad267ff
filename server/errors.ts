import { AppError } from "@/lib/contracts";

const DATABASE_ERRORS = /^Mongo(ServerSelection|Network|NetworkTimeout|NotConnected|Timeout)?Error$|^MongooseServerSelectionError$/;

/**
 * Maps any thrown value to what a person may be told. Database outages get their own
 * sentence (they are temporary); other surprises stay generic, their details logged.
 */
export function toAppError(error: unknown): AppError | undefined {
  if (error instanceof AppError) return error;
  const name = (error as { name?: string } | null)?.name ?? "";
  const message = String((error as { message?: string } | null)?.message ?? "");
  if (DATABASE_ERRORS.test(name) || message.includes("buffering timed out")) {
    return new AppError("unavailable", "The database is unreachable right now; nothing was changed. Try again in a moment.");
  }
  return undefined;
}
