/**
 * Where to go after logging in: only a same-site path. "//host" and "/\host" are
 * protocol-relative URLs to another site, so they fall back to the start page.
 */
export function safeNextPath(next: string | null): string {
  if (!next || !next.startsWith("/") || next.startsWith("//") || next.startsWith("/\\")) return "/";
  return next;
}
