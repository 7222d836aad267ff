import { z } from "zod";

/**
 * The usage report (GET /api/usage): what a person's turns and subagent runs spent, summed
 * from the stored turns and runs (lib/usage/usage-summary.ts) per UTC day, per model and
 * per agent definition; for an admin in the account modes, everyone's, per person too.
 */
export const USAGE_ROUTE = "/api/usage";
/** Days a report covers when the query names none (ending today). */
export const USAGE_DEFAULT_DAYS = 30;
/** The longest range one report covers, so one request reads a bounded number of turns. */
export const USAGE_MAX_DAYS = 366;

const DAY = /^\d{4}-\d{2}-\d{2}$/;
/** A UTC day as `YYYY-MM-DD`, one the calendar has (no 2026-02-30). */
const day = z
  .string()
  .regex(DAY, "Write a day as YYYY-MM-DD.")
  .refine((d) => {
    const t = Date.parse(`${d}T00:00:00Z`);
    return !Number.isNaN(t) && new Date(t).toISOString().startsWith(d);
  }, "That day is not in the calendar.");

/** The query string: `from` and `to` are UTC days, both included; `person` is for an admin. */
export const usageQuerySchema = z
  .object({
    from: day.optional(),
    to: day.optional(),
    person: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,64}$/, "A person is named by their id.")
      .optional(),
  })
  .refine((q) => !q.from || !q.to || q.from <= q.to, { message: "`from` must not be after `to`.", path: ["from"] });
export type UsageQuery = z.infer<typeof usageQuerySchema>;

/** The figures every row of the report carries. */
export interface UsageFigures {
  /** The answering models' tokens. */
  inputTokens: number;
  outputTokens: number;
  /** The system model's tokens (condensation, compaction), counted under the agent that asked for it. */
  systemInputTokens: number;
  systemOutputTokens: number;
  /** All four above. */
  tokens: number;
  /** US dollars, where the model's prices are known. */
  costUsd: number;
  /** Turns (the master's runs) in this row. */
  turns: number;
  /** Subagent runs in this row. */
  runs: number;
  /** Turns and runs that ended because they reached their budget. */
  budgetStops: number;
}

export interface UsageDay extends UsageFigures {
  /** The UTC day, `YYYY-MM-DD`. */
  day: string;
}

export interface UsageModelRow extends UsageFigures {
  /** The model's label; "Unknown model" for records from before it was kept. */
  model: string;
}

export interface UsageDefinitionRow extends UsageFigures {
  /** `master`, `operator:<name>` or `app:<definition id>:<version>`. */
  key: string;
  /** What a person reads: "Master agent", the definition's name (and version). */
  label: string;
}

export interface UsagePersonRow extends UsageFigures {
  personId: string;
  /** The account's name or email; the id when there is no account (single mode, older chats). */
  label: string;
}

export interface UsageReport {
  /** The days covered, both included. */
  from: string;
  to: string;
  /** Whose usage: a person's id, or null for everyone (an admin's default). */
  person: string | null;
  /** The asker may see everyone's (an admin). */
  canSeeEveryone: boolean;
  totals: UsageFigures;
  /** Every day of the range, oldest first, days without use included (as zeros). */
  days: UsageDay[];
  /** Most tokens first. */
  models: UsageModelRow[];
  definitions: UsageDefinitionRow[];
  /** Everyone's report only: one row per person who used something, most tokens first. */
  people?: UsagePersonRow[];
}
