/**
 * Offset-based text accumulation for the turn reducer: one rule for every step's text and
 * reasoning, whoever folds it.
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
