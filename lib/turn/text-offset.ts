/**
 * Offset-based text accumulation, shared by the markup transforms and the turn reducer so
 * the live and stored paths agree on every edge case.
 *
 * Why offsets: a reconnect replays an overlapping suffix of events and a retry may send a
 * chunk twice. Carrying the chunk's position makes application idempotent without
 * comparing text, so the cost never depends on how long the text already is.
 *
 * Returns the new text, or `undefined` when the chunk changes nothing:
 * - already covered (`offset + length ≤ current length`) → no-op;
 * - partial overlap → only the unseen tail is appended;
 * - gap (`offset > current length`) → ignored (the client resyncs from a snapshot).
 */
export function appendAtOffset(current: string, offset: number, chunk: string): string | undefined {
  const length = current.length;
  const end = offset + chunk.length;
  if (chunk.length === 0 || end <= length || offset > length) return undefined;
  return offset === length ? current + chunk : current + chunk.slice(length - offset);
}

/** The part of `chunk` that `appendAtOffset` would append, or "" when it appends nothing. */
export function tailAtOffset(currentLength: number, offset: number, chunk: string): string {
  const end = offset + chunk.length;
  if (chunk.length === 0 || end <= currentLength || offset > currentLength) return "";
  return offset === currentLength ? chunk : chunk.slice(currentLength - offset);
}
