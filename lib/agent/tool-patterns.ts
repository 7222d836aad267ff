/**
 * A list of tool names and patterns as a predicate, for `allowedTools`, `requireApproval`
 * and the MCP config: an exact name (`file_read`) or a pattern whose only wildcard is `*`,
 * any run of characters (`files.*`, `everything.get_*`, `*`). MCP tools are named
 * `server.tool`, so `files.*` is every tool of the `files` server. Nothing else is special
 * (no braces, classes or groups), so a pattern means what it looks like.
 */
export function toolMatcher(allowed: readonly string[] | "all"): (name: string) => boolean {
  if (allowed === "all") return () => true;
  const exact = new Set(allowed.filter((p) => !p.includes("*")));
  const patterns = allowed.filter((p) => p.includes("*"));
  return (name) => exact.has(name) || patterns.some((p) => wildcardMatch(p, name));
}

/**
 * `*`-only matching in time proportional to pattern × name, whatever the pattern (a regex
 * of several `.*` backtracks polynomially): on a mismatch, the last `*` takes one more
 * character and matching resumes after it.
 */
export function wildcardMatch(pattern: string, name: string): boolean {
  let p = 0;
  let n = 0;
  let star = -1;
  let resume = 0;
  while (n < name.length) {
    if (p < pattern.length && pattern[p] === "*") {
      star = p++;
      resume = n;
    } else if (p < pattern.length && pattern[p] === name[n]) {
      p++;
      n++;
    } else if (star >= 0) {
      p = star + 1;
      n = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.length && pattern[p] === "*") p++;
  return p === pattern.length;
}
