import type { Budget, QuotaSetting, QuotaView, setQuotaBody } from "@/lib/contracts";
import type { z } from "zod";
import { quotaWindows, type Quota, type QuotaPeriod } from "./quota";
import type { Spend } from "./spend";

/**
 * An account's own quota against the operator's default (QUOTA_*). Pure: what a stored
 * setting makes the quota, what an admin's form makes the stored setting, and what a
 * person or the admin is shown; the reading and writing is server/budgets/.
 */

/** The quota in force: the account's own when it has one, else the default. */
export function effectiveQuota(setting: QuotaSetting | null | undefined, fallback: Quota): Quota {
  if (!setting) return fallback;
  if (setting.kind === "none") return {};
  return { ...(setting.day ? { day: setting.day } : {}), ...(setting.month ? { month: setting.month } : {}) };
}

/** What to store for a valid form: null clears the account's own setting (back to the default). */
export function settingOfBody(body: z.output<typeof setQuotaBody>): QuotaSetting | null {
  if (body.kind === "default") return null;
  if (body.kind === "none") return { kind: "none" };
  const day = budgetOf(body.day);
  const month = budgetOf(body.month);
  return { kind: "custom", ...(day ? { day } : {}), ...(month ? { month } : {}) };
}

/** A stored value read back: anything not recognisably a setting counts as none set (the default). */
export function storedSetting(value: unknown): QuotaSetting | null {
  if (!value || typeof value !== "object") return null;
  const v = value as { kind?: unknown; day?: unknown; month?: unknown };
  if (v.kind === "none") return { kind: "none" };
  if (v.kind !== "custom") return null;
  const day = budgetOf(v.day);
  const month = budgetOf(v.month);
  return { kind: "custom", ...(day ? { day } : {}), ...(month ? { month } : {}) };
}

export function quotaView(setting: QuotaSetting | null, fallback: Quota, used: Record<QuotaPeriod, Spend>, now: Date): QuotaView {
  const quota = effectiveQuota(setting, fallback);
  const windows = quotaWindows(now);
  return {
    source: setting ? setting.kind : "default",
    ...(quota.day ? { day: quota.day } : {}),
    ...(quota.month ? { month: quota.month } : {}),
    used: { day: { ...used.day }, month: { ...used.month } },
    resetsAt: { day: windows.day.resetsAt.toISOString(), month: windows.month.resetsAt.toISOString() },
  };
}

function budgetOf(value: unknown): Budget | undefined {
  if (!value || typeof value !== "object") return undefined;
  const { tokens, usd } = value as { tokens?: unknown; usd?: unknown };
  const t = typeof tokens === "number" && tokens > 0 ? tokens : undefined;
  const u = typeof usd === "number" && usd > 0 ? usd : undefined;
  if (t === undefined && u === undefined) return undefined;
  return { ...(t !== undefined ? { tokens: t } : {}), ...(u !== undefined ? { usd: u } : {}) };
}
