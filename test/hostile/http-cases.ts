import { request as httpRequest } from "node:http";
import { expect } from "vitest";
import { expand, type Vars } from "./corpus";

/** One hostile HTTP request (test-data/hostile/http-requests.json). */
export interface HttpCase {
  id: string;
  note?: string;
  method: string;
  path: string;
  headers?: Record<string, string>;
  /** Defaults to application/json; null sends no Content-Type at all. */
  contentType?: string | null;
  body?: unknown;
  rawBody?: unknown;
  rawBodyBase64?: string;
  /** `accounts`: sent to the open-account-mode server (test/hostile/accounts-server.ts) instead. */
  server?: "accounts";
  /** On the accounts server, whose cookies are sent (default: the attacker, a signed-in member). */
  as?: "attacker" | "anonymous" | "disabled" | "revoked";
  expect: {
    status: number;
    code?: string;
    messageMatches?: string;
    data?: Record<string, unknown>;
    listedTitle?: unknown;
    /** The answer sets a new `dlg_session`, not the one the request carried (session fixation). */
    freshSession?: boolean;
  };
}

export interface HttpReply {
  status: number;
  body: unknown;
  setCookies?: string[];
  /** The Cookie header the request carried. */
  sentCookie?: string;
}

/**
 * Sends a case with node:http rather than fetch: the server answers 413 while a 10 MB
 * body is still uploading, and node:http lets the test read that answer anyway.
 */
export function sendHttpCase(baseUrl: string, cookie: string, c: HttpCase, vars: Vars): Promise<HttpReply> {
  const payload =
    c.rawBodyBase64 !== undefined
      ? Buffer.from(c.rawBodyBase64, "base64")
      : c.rawBody !== undefined
        ? Buffer.from(String(expand(c.rawBody, vars)), "utf8")
        : c.body !== undefined
          ? Buffer.from(JSON.stringify(expand(c.body, vars)), "utf8")
          : undefined;
  const headers: Record<string, string> = { cookie, ...(expand(c.headers ?? {}, vars) as Record<string, string>) };
  const type = c.contentType === undefined ? "application/json" : c.contentType;
  if (type !== null && payload) headers["content-type"] = type;
  if (payload) headers["content-length"] = String(payload.length);
  const url = new URL(String(expand(c.path, vars)), baseUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: c.method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        const meta = { setCookies: res.headers["set-cookie"] ?? [], sentCookie: headers.cookie };
        try {
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(text), ...meta });
        } catch {
          resolve({ status: res.statusCode ?? 0, body: text, ...meta });
        }
      });
    });
    // The server may stop reading an oversized body and answer first; its answer is what counts.
    req.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code !== "EPIPE" && error.code !== "ECONNRESET") reject(error);
    });
    req.setTimeout(30_000, () => req.destroy(new Error(`no answer to ${c.id}`)));
    req.end(payload);
  });
}

export function checkHttpReply(c: HttpCase, reply: HttpReply): unknown {
  const want = c.expect;
  expect(reply.status, `${c.id}: ${JSON.stringify(reply.body).slice(0, 300)}`).toBe(want.status);
  if (want.status >= 400) {
    const error = (reply.body as { error?: { code: string; message: string } }).error;
    expect(error?.code).not.toBe("internal");
    if (want.code) expect(error?.code).toBe(want.code);
    if (want.messageMatches) expect(error?.message).toMatch(new RegExp(want.messageMatches));
    expect(error?.message.length ?? 0).toBeLessThanOrEqual(300);
    return undefined;
  }
  if (want.data) expect(reply.body).toMatchObject(expand(want.data) as object);
  if (want.freshSession) {
    const set = (reply.setCookies ?? []).find((line) => line.startsWith("dlg_session="));
    const value = set?.slice("dlg_session=".length).split(";")[0] ?? "";
    expect(value, `${c.id}: a new dlg_session`).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(reply.sentCookie ?? "", `${c.id}: not the planted one`).not.toContain(value);
  }
  return reply.body;
}
