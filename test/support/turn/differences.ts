/**
 * Where two JSON-like values differ, as short paths ("0.steps.2.toolCalls: 3 vs 4 items"),
 * at most `limit` of them: an assertion on it names what is missing in one line, where a
 * deep-equality failure on two whole histories prints "[Array(1)] vs [Array(1)]".
 * Keys whose value is `undefined` count as absent, as in lib/turn/deep-equal.ts.
 */
export function differences(actual: unknown, expected: unknown, limit = 8): string[] {
  const found: string[] = [];
  walk(actual, expected, "", found, limit);
  return found;
}

function walk(a: unknown, b: unknown, path: string, found: string[], limit: number): void {
  if (found.length >= limit || Object.is(a, b)) return;
  const at = path || "(root)";
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) {
    found.push(`${at}: ${brief(a)} vs ${brief(b)}`);
    return;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) found.push(`${at}: ${a.length} vs ${b.length} items`);
    for (let i = 0; i < Math.min(a.length, b.length); i++) walk(a[i], b[i], join(path, String(i)), found, limit);
    return;
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  for (const key of new Set([...Object.keys(left), ...Object.keys(right)])) {
    if (left[key] === undefined && right[key] === undefined) continue;
    walk(left[key], right[key], join(path, key), found, limit);
  }
}

const join = (path: string, key: string) => (path ? `${path}.${key}` : key);

function brief(value: unknown): string {
  if (value === undefined) return "absent";
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}
