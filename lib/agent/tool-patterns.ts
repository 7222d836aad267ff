import picomatch from "picomatch";

/**
 * A definition's `allowedTools` as a predicate: exact names (`file_read`) or glob patterns
 * (`files.*`, `everything.get_*`). MCP tools are named `server.tool`, so `files.*` allows
 * every tool of the `files` server. Tool names never hold `/`, so picomatch's `*` spans
 * the rest of the name.
 */
export function toolMatcher(allowed: readonly string[] | "all"): (name: string) => boolean {
  if (allowed === "all") return () => true;
  const exact = new Set(allowed);
  const globs = allowed.filter((p) => picomatch.scan(p).isGlob);
  const match = globs.length ? picomatch(globs, { dot: true }) : () => false;
  return (name) => exact.has(name) || match(name);
}
