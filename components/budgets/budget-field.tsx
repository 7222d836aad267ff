"use client";

import { useId } from "react";
import type { Budget } from "@/lib/contracts";

/**
 * The next turn's budget, beside the model picker, in tokens ("5k") or dollars ("$0.50"):
 * blank leaves the server's default
 * (`fallback`, TURN_BUDGET_*), shown as the placeholder. The turn stops when its spend,
 * its subagents' included, reaches it.
 */
export function BudgetField({
  value,
  onChange,
  fallback,
  invalid,
  disabled,
}: {
  value: string;
  onChange: (value: string) => void;
  fallback?: Budget;
  /** Why the value cannot be sent, if it cannot. */
  invalid?: string;
  disabled?: boolean;
}) {
  const id = useId();
  const placeholder =
    fallback?.tokens !== undefined
      ? fallback.tokens.toLocaleString("en-US")
      : fallback?.usd !== undefined
        ? `$${fallback.usd}`
        : "no limit";
  return (
    <span className="flex items-center gap-1 text-[11px] text-zinc-500 dark:text-zinc-400">
      <label htmlFor={id}>Budget</label>
      <input
        id={id}
        data-testid="turn-budget-input"
        inputMode="numeric"
        value={value}
        onChange={(e) => onChange(e.target.value)}
        disabled={disabled}
        placeholder={placeholder}
        aria-invalid={invalid ? true : undefined}
        title={
          invalid ??
          "What the next turn may spend, its subagents included, in tokens (5k) or dollars ($0.50); at the limit it stops. Blank: the server's default."
        }
        className="w-20 rounded border border-zinc-300 bg-transparent px-1.5 py-0.5 tabular-nums focus:border-sky-500 focus:outline-none aria-[invalid]:border-red-500 dark:border-zinc-700"
      />
    </span>
  );
}
