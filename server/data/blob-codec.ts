import { promisify } from "node:util";
import { brotliCompress, brotliDecompressSync, constants } from "node:zlib";

/**
 * How a model-call blob (one message or tool list as JSON) is kept in MongoDB. Requests
 * repeat the same prose, code and JSON keys, so Brotli at a middling quality shrinks them
 * about four to eight times; the compression runs on libuv's thread pool, off the event
 * loop that relays the stream. A blob too small to gain is kept as plain text, so short
 * messages stay readable in the database shell.
 */

const MIN_COMPRESSED_CHARS = 512;
const QUALITY = 5;
const compress = promisify(brotliCompress);

/** The stored shape: exactly one of the two fields. */
export type StoredBlob = { json: string; z?: undefined } | { z: Buffer; json?: undefined };

export async function encodeBlob(json: string): Promise<StoredBlob> {
  if (json.length < MIN_COMPRESSED_CHARS) return { json };
  const z = await compress(Buffer.from(json, "utf8"), {
    params: { [constants.BROTLI_PARAM_QUALITY]: QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: json.length },
  });
  return z.length < json.length ? { z } : { json };
}

/** A blob as read back with `lean()`: the driver hands binary fields over as BSON `Binary`. */
export function decodeBlob(row: { json?: string | null; z?: Uint8Array | { buffer: Uint8Array } | null }): string {
  if (typeof row.json === "string") return row.json;
  if (row.z) return brotliDecompressSync(row.z instanceof Uint8Array ? row.z : row.z.buffer).toString("utf8");
  throw new Error("a stored model-call blob holds neither text nor compressed text");
}
