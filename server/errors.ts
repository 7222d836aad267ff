import { AppError } from "@/lib/contracts";

const DATABASE_ERRORS = /^Mongo(ServerSelection|Network|NetworkTimeout|NotConnected|Timeout)?Error$|^MongooseServerSelectionError$/;

/** A write a unique index refused (E11000): something that must exist once already does. */
export function isDuplicateKey(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === 11000;
}

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
