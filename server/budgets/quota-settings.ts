import type { Budget } from "@/lib/contracts";
import type { Quota } from "@/lib/budgets/quota";
import type { Env } from "@/lib/env";

type QuotaEnv = Pick<Env, "QUOTA_DAILY_TOKENS" | "QUOTA_MONTHLY_TOKENS" | "QUOTA_DAILY_USD" | "QUOTA_MONTHLY_USD">;

/** The operator's quotas for every person (QUOTA_DAILY_* and QUOTA_MONTHLY_*); unset ones are no limit. */
export function quotaFromEnv(env: QuotaEnv): Quota {
  const day = budgetOf(env.QUOTA_DAILY_TOKENS, env.QUOTA_DAILY_USD);
  const month = budgetOf(env.QUOTA_MONTHLY_TOKENS, env.QUOTA_MONTHLY_USD);
  return { ...(day ? { day } : {}), ...(month ? { month } : {}) };
}

function budgetOf(tokens: number | undefined, usd: number | undefined): Budget | undefined {
  if (tokens === undefined && usd === undefined) return undefined;
  return { ...(tokens !== undefined ? { tokens } : {}), ...(usd !== undefined ? { usd } : {}) };
}
