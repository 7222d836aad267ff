import { describe, expect, it } from "vitest";
import { emptyStats } from "@/lib/contracts";
import { budgetFromField, overrunFigure, overrunOf, spendAgainst, spendOf } from "./spend";

describe("spendOf", () => {
  it("counts chat and system tokens, input and output, and the priced cost", () => {
    const stats = {
      ...emptyStats(),
      chat: { inputTokens: 1_000, outputTokens: 140 },
      system: { inputTokens: 900, outputTokens: 100 },
      cost: 0.02,
    };
    expect(spendOf(stats)).toEqual({ tokens: 2_140, usd: 0.02 });
  });
});

describe("overrunOf", () => {
  const cases = [
    { name: "below both limits", spend: { tokens: 1_999, usd: 0.009 }, budget: { tokens: 2_000, usd: 0.01 }, want: undefined },
    {
      name: "at the token limit",
      spend: { tokens: 2_000, usd: 0 },
      budget: { tokens: 2_000 },
      want: { unit: "tokens", spent: 2_000, limit: 2_000 },
    },
    {
      name: "past the dollar limit",
      spend: { tokens: 10, usd: 0.011 },
      budget: { usd: 0.01 },
      want: { unit: "usd", spent: 0.011, limit: 0.01 },
    },
    {
      name: "tokens before dollars when both are reached",
      spend: { tokens: 3_000, usd: 1 },
      budget: { tokens: 2_000, usd: 0.5 },
      want: { unit: "tokens", spent: 3_000, limit: 2_000 },
    },
    { name: "no budget", spend: { tokens: 1e9, usd: 1e9 }, budget: undefined, want: undefined },
    { name: "unknown prices never reach a dollar budget", spend: { tokens: 1e6, usd: 0 }, budget: { usd: 0.01 }, want: undefined },
  ] as const;
  it.each(cases)("$name", ({ spend, budget, want }) => {
    expect(overrunOf(spend, budget)).toEqual(want);
  });
});

describe("figures", () => {
  it("says how far past its limit a run went, in the limit's unit", () => {
    expect(overrunFigure({ unit: "tokens", spent: 2_140, limit: 2_000 })).toBe("2,140 of 2,000 tokens");
    expect(overrunFigure({ unit: "usd", spent: 0.0213, limit: 0.02 })).toBe("$0.0213 of $0.0200");
  });

  it("shows the running spend against every limit the budget sets", () => {
    expect(spendAgainst({ tokens: 1_240, usd: 0.012 }, { tokens: 5_000 })).toBe("1,240 / 5,000 tokens");
    expect(spendAgainst({ tokens: 1_240, usd: 0.012 }, { tokens: 5_000, usd: 0.5 })).toBe("1,240 / 5,000 tokens · $0.0120 / $0.5000");
  });
});

describe("budgetFromField", () => {
  const cases = [
    { text: "", want: { ok: true } },
    { text: "  ", want: { ok: true } },
    { text: "5000", want: { ok: true, budget: { tokens: 5_000 } } },
    { text: "5,000", want: { ok: true, budget: { tokens: 5_000 } } },
    { text: "5k", want: { ok: true, budget: { tokens: 5_000 } } },
    { text: "1.5M", want: { ok: true, budget: { tokens: 1_500_000 } } },
    { text: "$0.50", want: { ok: true, budget: { usd: 0.5 } } },
    { text: " $2 ", want: { ok: true, budget: { usd: 2 } } },
  ] as const;
  it.each(cases)("reads $text", ({ text, want }) => {
    expect(budgetFromField(text)).toEqual(want);
  });

  it.each(["0", "-5", "lots", "5 tokens", "1e9999", "$", "$0", "$-1", "$1e3", "5$"])("refuses %s with a hint", (text) => {
    expect(budgetFromField(text)).toMatchObject({ ok: false, message: expect.stringContaining("like 5000 or 5k, or dollars, like $0.50") });
  });
});
