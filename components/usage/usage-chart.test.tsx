import { renderToString } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { UsageDay } from "@/lib/contracts/usage";
import { zeroFigures } from "@/lib/usage/usage-summary";
import { UsageChart } from "./usage-chart";

const day = (d: string, tokens: number, costUsd = 0): UsageDay => ({ ...zeroFigures(), day: d, tokens, costUsd });
const days = [day("2026-03-01", 0), day("2026-03-02", 1_500, 0.25), day("2026-03-03", 500, 0.05)];

/** The bars' heights, in order. */
const heights = (html: string) => [...html.matchAll(/data-testid="usage-bar"[^>]*height="([\d.]+)"/g)].map((m) => Number(m[1]));

describe("the usage chart", () => {
  it.each([
    {
      metric: "tokens" as const,
      title: "Tokens per day",
      text: "2,000 tokens over 3 days, on 2 of them. The busiest day was Mar 2 with 1,500 tokens.",
    },
    { metric: "cost" as const, title: "Cost per day", text: "$0.30 over 3 days, on 2 of them. The busiest day was Mar 2 with $0.25." },
  ])("says what it shows in words ($metric)", ({ metric, title, text }) => {
    const html = renderToString(<UsageChart days={days} metric={metric} />);
    expect(html).toContain('role="img"');
    expect(html).toContain(`<title id="`);
    expect(html).toContain(title);
    expect(html).toContain(text);
  });

  it("draws one bar per day, the busiest full height, an empty day none, a small one still visible", () => {
    const html = renderToString(<UsageChart days={[...days, day("2026-03-04", 1)]} metric="tokens" />);
    const h = heights(html);
    expect(h).toHaveLength(4);
    expect(h[0]).toBe(0);
    expect(h[1]).toBe(156);
    expect(h[2]).toBe(52);
    expect(h[3]).toBe(2);
  });

  it("says so when nothing was used", () => {
    expect(renderToString(<UsageChart days={[day("2026-03-01", 0)]} metric="tokens" />)).toContain("Nothing was used from Mar 1 to Mar 1.");
  });
});
