import type { Budget, TurnStats } from "@/lib/contracts";

/**
 * What a run has spent, read against its budget. Pure: the agent runtime asks it after
 * every model response it counts, and the views ask it to draw a figure, so the number
 * that stops a run is the number a person sees.
 */

/** Tokens (chat and system, input and output) and dollars (0 where no prices are known). */
export interface Spend {
  tokens: number;
  usd: number;
}

/** A budget's limit that a spend reached: which unit, how much was spent, and the limit. */
export interface Overrun {
  unit: "tokens" | "usd";
  spent: number;
  limit: number;
}

export function spendOf(stats: Pick<TurnStats, "chat" | "system" | "cost">): Spend {
  const { chat, system } = stats;
  return { tokens: chat.inputTokens + chat.outputTokens + system.inputTokens + system.outputTokens, usd: stats.cost };
}

/** The first limit `spend` has reached (tokens before dollars); undefined while within the budget or without one. */
export function overrunOf(spend: Spend, budget: Budget | undefined): Overrun | undefined {
  if (budget?.tokens !== undefined && spend.tokens >= budget.tokens) return { unit: "tokens", spent: spend.tokens, limit: budget.tokens };
  if (budget?.usd !== undefined && spend.usd >= budget.usd) return { unit: "usd", spent: spend.usd, limit: budget.usd };
  return undefined;
}

const COUNT = new Intl.NumberFormat("en-US");

/** "2,140 of 2,000 tokens", "$0.0213 of $0.0200". */
export function overrunFigure(overrun: Overrun): string {
  return overrun.unit === "tokens"
    ? `${COUNT.format(overrun.spent)} of ${COUNT.format(overrun.limit)} tokens`
    : `${usd(overrun.spent)} of ${usd(overrun.limit)}`;
}

/** "1,240 / 5,000 tokens", "$0.0120 / $0.5000", both joined by " · ": a running spend against each limit set. */
export function spendAgainst(spend: Spend, budget: Budget): string {
  const parts: string[] = [];
  if (budget.tokens !== undefined) parts.push(`${COUNT.format(spend.tokens)} / ${COUNT.format(budget.tokens)} tokens`);
  if (budget.usd !== undefined) parts.push(`${usd(spend.usd)} / ${usd(budget.usd)}`);
  return parts.join(" · ");
}

/** Four decimals: budgets of a few cents stay readable. */
function usd(value: number): string {
  return `$${value.toFixed(4)}`;
}

/**
 * The composer's budget field: blank is none (the server's default applies); a whole
 * number of tokens above 0 (commas and spaces allowed, "5k" for thousands) or an amount in
 * dollars written with its sign ("$0.50") is a budget; anything else is refused before it
 * is sent.
 */
export function budgetFromField(text: string): { ok: true; budget?: Budget } | { ok: false; message: string } {
  const plain = text.replace(/[\s,_]/g, "").toLowerCase();
  if (plain === "") return { ok: true };
  if (plain.startsWith("$")) {
    const dollars = USD_FIELD.test(plain) ? Number(plain.slice(1)) : NaN;
    if (!Number.isFinite(dollars) || dollars <= 0) return { ok: false, message: HINT };
    return { ok: true, budget: { usd: dollars } };
  }
  const match = TOKENS_FIELD.exec(plain);
  const tokens = match ? Math.round(Number(match[1]) * (match[2] === "k" ? 1_000 : match[2] === "m" ? 1_000_000 : 1)) : NaN;
  if (!Number.isSafeInteger(tokens) || tokens <= 0) return { ok: false, message: HINT };
  return { ok: true, budget: { tokens } };
}

const HINT = "A budget is a number of tokens, like 5000 or 5k, or dollars, like $0.50.";
const USD_FIELD = /^\$\d+(?:\.\d+)?$/;
const TOKENS_FIELD = /^(\d+(?:\.\d+)?)([km]?)$/;
