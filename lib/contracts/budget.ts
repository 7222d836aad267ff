import { z } from "zod";

/**
 * A spending limit: tokens (chat and system, input and output, as the provider reports
 * them) and/or US dollars (counted only where the model's prices are known). The same
 * shape limits one subagent run (its definition's `budget`) and one turn (`turn:send`'s
 * `budget`, or TURN_BUDGET_*); a run that reaches it ends with `budget_exceeded`.
 */
export const budgetSchema = z
  .strictObject({
    tokens: z.number().int().positive().optional(),
    usd: z.number().positive().finite().optional(),
  })
  .refine((b) => b.tokens !== undefined || b.usd !== undefined, "must set tokens, usd or both");
export type Budget = z.infer<typeof budgetSchema>;
