import { mongo } from "mongoose";

/**
 * MongoDB stores no document (nor update) over 16 MiB: the server refuses it, and the
 * refusal is the same on every retry. Each write path measures what it is about to send
 * with the driver's own BSON sizing and decides before sending (cut, drop, or refuse),
 * and tells a refusal from an outage, so a write that can never land is not retried.
 */

/** The server's limit on one document (BSON), in bytes. */
export const MAX_DOCUMENT_BYTES = 16 * 1024 * 1024;

/**
 * What a write path lets one document (or update) be: the limit less room for what the
 * write adds around it (the filter, operators, mongoose's casting, the command itself).
 */
export const STORABLE_DOCUMENT_BYTES = MAX_DOCUMENT_BYTES - 256 * 1024;

/** The BSON size of `value` as the driver would serialize it. */
export function bsonSize(value: object): number {
  return mongo.BSON.calculateObjectSize(value as mongo.Document, { ignoreUndefined: true });
}

export const storable = (value: object): boolean => bsonSize(value) <= STORABLE_DOCUMENT_BYTES;

/** A write refused before it was sent: what it carried is over the limit. */
export class DocumentTooLargeError extends Error {
  override readonly name = "DocumentTooLargeError";
  constructor(
    readonly what: string,
    readonly bytes: number,
  ) {
    super(`${what} is ${bytes} bytes as BSON, over the ${STORABLE_DOCUMENT_BYTES} a document may hold`);
  }
}

/** Throws DocumentTooLargeError when `value` would not fit in one document. */
export function assertStorable(value: object, what: string): void {
  const bytes = bsonSize(value);
  if (bytes > STORABLE_DOCUMENT_BYTES) throw new DocumentTooLargeError(what, bytes);
}

/**
 * The server codes that say "not now" rather than "not this": a node shutting down,
 * stepping down or electing a primary (MongoDB's retryable-writes list). A replica set's
 * failover answers with these for seconds; the write lands once a primary is back.
 */
const TRANSIENT_CODES = new Set([6, 7, 89, 91, 189, 262, 9001, 10107, 11600, 11602, 13435, 13436]);

/** The database did not answer (down, paused, restarting, between primaries), as opposed to refusing the write. */
export function unreachable(error: unknown): boolean {
  if (error instanceof DocumentTooLargeError) return false;
  const { name = "", message = "", code } = (error ?? {}) as { name?: string; message?: string; code?: unknown };
  const labelled = (label: string) =>
    typeof (error as { hasErrorLabel?: unknown } | null)?.hasErrorLabel === "function" &&
    (error as { hasErrorLabel(label: string): boolean }).hasErrorLabel(label);
  return (
    /MongoNetwork|ServerSelection|PoolCleared|NotConnected|Topology|ServerClosed/.test(name) ||
    /buffering timed out|ECONNREFUSED|ECONNRESET|connection .*closed|timed out/i.test(message) ||
    (typeof code === "number" && TRANSIENT_CODES.has(code)) ||
    labelled("RetryableWriteError") ||
    labelled("ResetPool")
  );
}

/** "1.2 MB": a size for people (the notes that stand in for cut parts). */
export function sizeLabel(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toFixed(1)} MB` : `${Math.ceil(bytes / 1024)} KB`;
}
