import type { IncomingMessage } from "node:http";
import { AppError } from "@/lib/contracts";

/** Past this (or past `maxBytes`, when that is larger) a body is cut off instead of drained. */
const DISCARD_LIMIT_BYTES = 32 * 1024 * 1024;

/**
 * Reads a request body up to `maxBytes`. Past that it keeps reading but discards, so the
 * client finishes sending and then reads a clear 413 (answering mid-upload leaves it
 * stuck or reset); a body past DISCARD_LIMIT_BYTES is cut off.
 */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) chunks.push(chunk);
      else if (size > Math.max(DISCARD_LIMIT_BYTES, maxBytes * 1.25)) req.destroy();
    });
    req.once("end", () => {
      if (size > maxBytes) reject(new AppError("too_large", `The request body is larger than ${maxBytes} bytes.`));
      else resolve(Buffer.concat(chunks).toString("utf8"));
    });
    req.once("error", reject);
  });
}
