import type { OutgoingHttpHeaders, ServerResponse } from "node:http";

/**
 * Headers every response carries, pages, API and refusals alike. The CSP allows inline
 * scripts: Next 16 inlines its bootstrap and flight data in statically prerendered pages,
 * which a per-request nonce cannot reach without making every page dynamic. What it does
 * forbid: framing (clickjacking), plugins, <base> rewrites, forms posting elsewhere, and
 * loading scripts, styles, images or connections from any other origin.
 */
export function contentSecurityPolicy(dev: boolean): string {
  return [
    "default-src 'self'",
    // Next's development build evaluates modules with eval (source maps, fast refresh).
    `script-src 'self' 'unsafe-inline'${dev ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    // 'self' covers ws:/wss: to this host (CSP 3), which the socket needs.
    "connect-src 'self'",
    "frame-ancestors 'none'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
  ].join("; ");
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
