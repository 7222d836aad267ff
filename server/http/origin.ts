import type { IncomingMessage } from "node:http";

/**
 * Same-origin check for browsers. A request without an Origin header did not come from a
 * cross-site page (browsers always send one on cross-origin and state-changing requests);
 * one with an Origin must match the Host it was sent to or an allowed origin (a reverse
 * proxy's public address).
 */
export function originAllowed(req: IncomingMessage, allowedOrigins: readonly string[]): boolean {
  const origin = req.headers.origin;
  if (!origin) return req.headers["sec-fetch-site"] !== "cross-site";
  if (allowedOrigins.includes(origin)) return true;
  try {
    return new URL(origin).host === req.headers.host;
  } catch {
    return false;
  }
}

export function parseAllowedOrigins(list: string): string[] {
  return list
    .split(",")
    .map((s) => s.trim().replace(/\/$/, ""))
    .filter(Boolean);
}
