/**
 * Small statistics helpers shared by the benchmarks. Percentiles use the nearest-rank
 * method on a sorted copy, so p99 of 100 samples is the 99th value, not an interpolation.
 */

export interface Summary {
  count: number;
  median: number;
  p99: number;
  mean: number;
  max: number;
}

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = Float64Array.from(values).sort();
  return nearestRank(sorted, p);
}

export function summarize(values: readonly number[]): Summary {
  if (values.length === 0) return { count: 0, median: Number.NaN, p99: Number.NaN, mean: Number.NaN, max: Number.NaN };
  const sorted = Float64Array.from(values).sort();
  let sum = 0;
  for (const v of sorted) sum += v;
  return {
    count: sorted.length,
    median: nearestRank(sorted, 50),
    p99: nearestRank(sorted, 99),
    mean: sum / sorted.length,
    max: sorted[sorted.length - 1]!,
  };
}

function nearestRank(sorted: Float64Array, p: number): number {
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

export function median(values: readonly number[]): number {
  return percentile(values, 50);
}

/** Milliseconds since an arbitrary origin, sub-microsecond resolution. */
export function nowMs(): number {
  return performance.now();
}

/** Runs `fn` `times` times and returns each run's duration in milliseconds. */
export async function timeRuns(times: number, fn: () => unknown): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < times; i++) {
    const start = nowMs();
    await fn();
    out.push(nowMs() - start);
  }
  return out;
}

export function round(value: number, digits = 2): number {
  if (!Number.isFinite(value)) return value;
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
