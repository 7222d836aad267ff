import { USAGE_DEFAULT_DAYS, USAGE_MAX_DAYS } from "@/lib/contracts/usage";
import { utcDay } from "./usage-summary";

const DAY_MS = 86_400_000;

/** A report's days (both included) and the times its turns started in: `[start, end)`. */
export interface UsageRange {
  from: string;
  to: string;
  start: Date;
  end: Date;
}

/**
 * The days a query asks for, defaults filled in: `to` today (UTC), `from` the
 * USAGE_DEFAULT_DAYS days up to `to`. A longer range than USAGE_MAX_DAYS is refused
 * (null): one request reads a bounded number of turns.
 */
export function usageRange(query: { from?: string; to?: string }, now: Date): UsageRange | null {
  const to = query.to ?? (query.from ? minDay(addDays(query.from, USAGE_DEFAULT_DAYS - 1), utcDay(now)) : utcDay(now));
  const from = query.from ?? addDays(to, -(USAGE_DEFAULT_DAYS - 1));
  const start = new Date(`${from}T00:00:00Z`);
  const end = new Date(Date.parse(`${to}T00:00:00Z`) + DAY_MS);
  const days = Math.round((end.getTime() - start.getTime()) / DAY_MS);
  if (days < 1 || days > USAGE_MAX_DAYS) return null;
  return { from, to, start, end };
}

function addDays(day: string, n: number): string {
  return utcDay(new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS));
}

const minDay = (a: string, b: string) => (a < b ? a : b);
