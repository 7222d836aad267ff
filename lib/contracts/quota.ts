import { z } from "zod";
import type { Budget } from "./budget";

/**
 * A person's own quota, as the admin sets it in the account modes (POST
 * /api/admin/accounts/:id/quota) and as each person reads theirs (GET /api/account/quota).
 * The operator's QUOTA_* are the default; an account's setting replaces them whole:
 * `default` clears it, `none` is no limit, `custom` is the limits given (an empty box is no
 * limit on that one).
 */

const tokens = z
  .number({ error: "Give a whole number of tokens, like 50000." })
  .int("Give a whole number of tokens, like 50000.")
  .positive("A token limit is above 0; leave the box empty for no limit.")
  .max(1e12, "At most 1,000,000,000,000 tokens.");
const usd = z
  .number({ error: "Give an amount in dollars, like 2.50." })
  .positive("A dollar limit is above 0; leave the box empty for no limit.")
  .max(1e6, "At most $1,000,000.");

/** One period's limits; both absent is no limit for that period. */
const periodLimit = z.strictObject({ tokens: tokens.optional(), usd: usd.optional() });

export const setQuotaBody = z.discriminatedUnion("kind", [
  z.strictObject({ kind: z.literal("default") }),
  z.strictObject({ kind: z.literal("none") }),
  z
    .strictObject({ kind: z.literal("custom"), day: periodLimit.default({}), month: periodLimit.default({}) })
    .refine((q) => [q.day, q.month].some((p) => p.tokens !== undefined || p.usd !== undefined), {
      message: "Set at least one limit, or choose “No limit”.",
      path: ["form"],
    }),
]);
export type SetQuotaBody = z.input<typeof setQuotaBody>;

/** What an account's quota is stored as; no setting at all is the default. */
export type QuotaSetting = { kind: "none" } | { kind: "custom"; day?: Budget; month?: Budget };

/** Tokens and dollars spent in a period (dollars count only where model prices are known). */
export interface QuotaSpend {
  tokens: number;
  usd: number;
}

/** A person's quota and what they spent against it this UTC day and month. */
export interface QuotaView {
  /** Where the quota comes from: the operator's default, no limit, or the admin's own figures. */
  source: "default" | "none" | "custom";
  /** The limits in force (absent: no limit in that period). */
  day?: Budget;
  month?: Budget;
  used: { day: QuotaSpend; month: QuotaSpend };
  resetsAt: { day: string; month: string };
}
