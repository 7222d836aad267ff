import type { IncomingMessage, ServerResponse } from "node:http";
import { AppError } from "@/lib/contracts";

/** How long a small body (a sign-in form, a share link's settings) may take to arrive. */
const DEFAULT_BODY_TIMEOUT_MS = 20_000;

/** The body did not arrive whole in time; answered 408. */
export class BodyTimeoutError extends AppError {
  constructor(timeoutMs: number) {
    super("bad_request", `The upload did not finish within ${timeoutMs / 1000} s; nothing was kept. Try again.`);
  }
}

/**
 * Reads a request body of at most `maxBytes`, counted as it arrives: a declared length
 * past the limit is refused before a byte is read, and a body that grows past it is
 * refused the moment it does, without keeping more. The whole body must arrive within
 * `timeoutMs`. When it is refused, cut off or too slow, what was read is dropped at once
 * and the request stops being read; the caller answers with `closeUnread`, so the rest
 * is never taken in.
 */
export async function readBody(req: IncomingMessage, maxBytes: number, timeoutMs = DEFAULT_BODY_TIMEOUT_MS): Promise<string> {
  return (await readBodyBytes(req, maxBytes, timeoutMs)).toString("utf8");
}

/**
 * `readBody`'s bytes as they came (an attachment's file). `tooLarge`: the sentence that
 * refuses a body past `maxBytes`, when the route has a better one than the bare limit.
 */
export function readBodyBytes(
  req: IncomingMessage,
  maxBytes: number,
  timeoutMs = DEFAULT_BODY_TIMEOUT_MS,
  tooLargeMessage = `The request body is larger than ${maxBytes} bytes.`,
): Promise<Buffer> {
  const tooLarge = () => new AppError("too_large", tooLargeMessage);
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > maxBytes) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    let chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (error: Error | undefined, body?: Buffer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.off("data", onData).off("end", onEnd).off("error", cutOff).off("close", cutOff);
      chunks = [];
      if (error) {
        req.pause();
        reject(error);
      } else resolve(body ?? Buffer.alloc(0));
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) settle(tooLarge());
      else chunks.push(chunk);
    };
    const onEnd = () => settle(undefined, Buffer.concat(chunks));
    // A client that went away reads no answer; the error only has to end the request quietly.
    const cutOff = () => settle(new AppError("bad_request", "The upload was cut off before it finished; nothing was kept."));
    const timer = setTimeout(() => settle(new BodyTimeoutError(timeoutMs)), timeoutMs);
    req.on("data", onData).once("end", onEnd).once("error", cutOff).once("close", cutOff);
  });
}

/**
 * An answer to a request whose body was not read to its end (refused, too slow) closes
 * the connection once it is written: otherwise Node would go on reading, and dropping,
 * whatever the client still sends.
 */
export function closeUnread(req: IncomingMessage, res: ServerResponse): void {
  if (!req.complete && !res.headersSent) res.setHeader("connection", "close");
}
