/** Stands in for this site while `next` is resolved; only the path is kept. */
const HERE = "http://here.invalid";

/**
 * Where to go after logging in: a path on this site, else the start page. It is checked
 * the way a browser will read it: browsers drop tabs and newlines from URLs and take "\"
 * for "/", so "/\t/host" and "/\host" become "//host", another site. So: no control
 * characters or backslashes at all, the same origin once resolved, and no "//" left at the
 * start after dot segments are normalised ("/..//host").
 */
export function safeNextPath(next: string | null): string {
  // eslint-disable-next-line no-control-regex -- control characters are what this refuses
  if (!next || !next.startsWith("/") || /[\u0000-\u001f\u007f\\]/.test(next)) return "/";
  let url: URL;
  try {
    url = new URL(next, HERE);
  } catch {
    return "/";
  }
  const path = url.pathname + url.search + url.hash;
  return url.origin === HERE && !path.startsWith("//") ? path : "/";
}
