import type { Budget } from "@/lib/contracts";
import { overrunFigure, overrunOf, type Overrun, type Spend } from "./spend";

/**
 * A person's quotas: what they may spend per UTC day and per UTC month, every chat and
 * every process together. Pure: which counters a moment falls in, whether a person's
 * counts reach a quota, and what they are told; the counting is server/budgets/.
 */

export type QuotaPeriod = "day" | "month";
export const QUOTA_PERIODS: readonly QuotaPeriod[] = ["day", "month"];

export interface Quota {
  day?: Budget;
  month?: Budget;
}

/** One period's counter: its key (a person's counter is theirs per key) and when it resets. */
export interface QuotaWindow {
  period: QuotaPeriod;
  /** "2026-12-03" for a day, "2026-12" for a month (UTC). */
  key: string;
  startsAt: Date;
  resetsAt: Date;
}

export interface QuotaOverrun {
  period: QuotaPeriod;
  overrun: Overrun;
  resetsAt: Date;
}

export function quotaWindows(now: Date): Record<QuotaPeriod, QuotaWindow> {
  const y = now.getUTCFullYear();
  const m = now.getUTCMonth();
  const d = now.getUTCDate();
  const day = new Date(Date.UTC(y, m, d));
  const month = new Date(Date.UTC(y, m, 1));
  return {
    day: { period: "day", key: day.toISOString().slice(0, 10), startsAt: day, resetsAt: new Date(Date.UTC(y, m, d + 1)) },
    month: { period: "month", key: month.toISOString().slice(0, 7), startsAt: month, resetsAt: new Date(Date.UTC(y, m + 1, 1)) },
  };
}

/** The first quota `used` reaches (the day's before the month's); undefined while within both. */
export function quotaOverrunOf(used: Record<QuotaPeriod, Spend>, quota: Quota, now: Date): QuotaOverrun | undefined {
  const windows = quotaWindows(now);
  for (const period of QUOTA_PERIODS) {
    const overrun = overrunOf(used[period], quota[period]);
    if (overrun) return { period, overrun, resetsAt: windows[period].resetsAt };
  }
  return undefined;
}

export function hasQuota(quota: Quota): boolean {
  return quota.day !== undefined || quota.month !== undefined;
}

const PERIOD_WORDS: Record<QuotaPeriod, string> = { day: "daily", month: "monthly" };

/** "your daily quota: 100,420 of 100,000 tokens; it resets at 2026-12-04 00:00 UTC (in 9 h 15 min)". */
export function quotaText(over: QuotaOverrun, now: Date): string {
  const at = `${over.resetsAt.toISOString().slice(0, 16).replace("T", " ")} UTC`;
  return `your ${PERIOD_WORDS[over.period]} quota: ${overrunFigure(over.overrun)}; it resets at ${at} (in ${untilText(over.resetsAt.getTime() - now.getTime())})`;
}

/** The refusal of a turn a person may not start. */
export function quotaRefusal(over: QuotaOverrun, now: Date): string {
  return `You have used ${quotaText(over, now)}.`;
}

function untilText(ms: number): string {
  const minutes = Math.max(1, Math.ceil(ms / 60_000));
  const days = Math.floor(minutes / 1_440);
  const hours = Math.floor((minutes % 1_440) / 60);
  const rest = minutes % 60;
  if (days > 0) return `${days} d ${hours} h`;
  return hours > 0 ? `${hours} h ${rest} min` : `${rest} min`;
}
