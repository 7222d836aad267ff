/**
 * Structural equality for plain JSON-like data (the turn tree). Used to keep the
 * reducer returning the same object when an event changes nothing, e.g. a repeated
 * `agent:complete`. Keys whose value is `undefined` count as absent.
 */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    return a.length === other.length && a.every((item, i) => deepEqual(item, other[i]));
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = new Set([...Object.keys(left), ...Object.keys(right)]);
  for (const key of keys) if (!deepEqual(left[key], right[key])) return false;
  return true;
}

/** Maps an array, returning the same array when every element came back unchanged. */
export function mapShared<T>(items: readonly T[], fn: (item: T) => T): T[] {
  let out: T[] | undefined;
  items.forEach((item, i) => {
    const next = fn(item);
    if (next !== item && !out) out = items.slice(0, i);
    if (out) out.push(next);
  });
  return out ?? (items as T[]);
}
