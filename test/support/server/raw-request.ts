import { request } from "node:http";

/**
 * A request with exactly the headers given, Host included (fetch always sends the Host of
 * the URL), for tests that play a browser on a rebound DNS name.
 */
export interface RawReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface RawOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** Sends no Host header at all (HTTP/1.0 allows that). */
  noHost?: boolean;
  /** Sends the headers at once and the body only when this settles (a slow client). */
  bodyAfter?: Promise<unknown>;
}

export function rawRequest(baseUrl: string, path: string, options: RawOptions = {}): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const req = request(
      new URL(path, baseUrl),
      { method: options.method ?? "GET", headers: options.headers, setHost: !options.noHost },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }));
      },
    );
    req.on("error", reject);
    if (!options.bodyAfter) {
      req.end(options.body);
      return;
    }
    req.flushHeaders();
    void options.bodyAfter.then(() => req.end(options.body));
  });
}
