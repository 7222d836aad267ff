import { randomBytes } from "node:crypto";
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";

/**
 * Headers every response carries, pages, API and refusals alike. Scripts run only from
 * this origin or, inline, with the response's own nonce: Next 16 reads the nonce from the
 * request's `content-security-policy` header (set here, see `withNonce`) and puts it on
 * the bootstrap and flight-data scripts it inlines, which is why every page renders per
 * request (app/layout.tsx). An injected `<script>` has no nonce and does not run. The CSP
 * also forbids framing (clickjacking), plugins, <base> rewrites, forms posting elsewhere,
 * and loading scripts, styles, images or connections from any other origin.
 */
export function contentSecurityPolicy(dev: boolean, nonce?: string): string {
  return [
    "default-src 'self'",
    // Next's development build evaluates modules with eval (source maps, fast refresh).
    `script-src 'self'${nonce ? ` 'nonce-${nonce}'` : ""}${dev ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    // 'self' covers ws:/wss: to this host (CSP 3), which the socket needs.
    "connect-src 'self'",
    // The service worker (/sw.js, and the scripts it imports) is the app's own.
    "worker-src 'self'",
    "frame-ancestors 'none'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
  ].join("; ");
}

/** The nonce in a policy made by `contentSecurityPolicy` (a page's own inline script needs it). */
export function nonceOf(policy: string | null | undefined): string | undefined {
  return policy?.match(/'nonce-([A-Za-z0-9+/=]+)'/)?.[1];
}

/** A fresh nonce for one response: 128 random bits, base64. */
export function newNonce(): string {
  return randomBytes(16).toString("base64");
}

/**
 * Hands a page request's policy to Next, which takes the nonce for its inline scripts from
 * the request's own `content-security-policy` header; a header of that name from the
 * client is replaced, so no one chooses their own nonce.
 */
export function withNonce(req: IncomingMessage, csp: string): void {
  req.headers["content-security-policy"] = csp;
  delete req.headers["content-security-policy-report-only"];
}

/**
 * Sets the security headers on `res`, and makes sure a response that sets a cookie is
 * never stored by a shared cache: Next marks prerendered pages `s-maxage=31536000`, and
 * a proxy keeping one would hand the identity cookie in it to everyone.
 */
export function hardenResponse(res: ServerResponse, csp: string): void {
  res.setHeader("content-security-policy", csp);
  res.setHeader("x-frame-options", "DENY");
  res.setHeader("referrer-policy", "no-referrer");
  res.setHeader("x-content-type-options", "nosniff");
  const writeHead = res.writeHead.bind(res) as (status: number, ...rest: unknown[]) => ServerResponse;
  // Every way of sending headers ends in writeHead (res.end calls it implicitly), so the
  // last word on caching is said here. Headers passed as a raw array are left alone: no one here does that.
  res.writeHead = ((status: number, ...rest: unknown[]) => {
    const index = rest.findIndex((part) => typeof part === "object" && part !== null && !Array.isArray(part));
    const given = index >= 0 ? (rest[index] as OutgoingHttpHeaders) : {};
    const setsCookie = res.hasHeader("set-cookie") || Object.keys(given).some((key) => key.toLowerCase() === "set-cookie");
    if (setsCookie) {
      const headers = Object.fromEntries(Object.entries(given).filter(([key]) => key.toLowerCase() !== "cache-control"));
      res.setHeader("cache-control", "private, no-store");
      if (index >= 0) rest[index] = headers;
    }
    return writeHead(status, ...rest);
  }) as ServerResponse["writeHead"];
}
