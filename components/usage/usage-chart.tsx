"use client";

import { useId } from "react";
import type { UsageDay } from "@/lib/contracts/usage";
import { formatMetric, metricValue, type Metric } from "./metric";

const HEIGHT = 160;
const BAR_GAP = 0.2;

/** "Mar 5" for a UTC day. */
function shortDay(day: string): string {
  return new Date(`${day}T00:00:00Z`).toLocaleDateString("en-US", { month: "short", day: "numeric", timeZone: "UTC" });
}

/**
 * Tokens or cost per day as SVG bars, drawn by hand. The SVG is one image with a title and
 * a description that says what it shows in words (the busiest day, the total); every bar
 * has its own title for a pointer, and the table under the chart holds every figure.
 */
export function UsageChart({ days, metric }: { days: readonly UsageDay[]; metric: Metric }) {
  const titleId = useId();
  const descId = useId();
  const values = days.map((d) => metricValue(d, metric));
  const max = Math.max(0, ...values);
  const total = values.reduce((a, b) => a + b, 0);
  const busiest = max > 0 ? days[values.indexOf(max)] : undefined;
  const used = values.filter((v) => v > 0).length;
  const width = Math.max(days.length, 1) * 10;
  const barWidth = 10 * (1 - BAR_GAP);
  const what = metric === "tokens" ? "Tokens" : "Cost";
  const description =
    max === 0
      ? `Nothing was used from ${days[0] ? shortDay(days[0].day) : ""} to ${days.at(-1) ? shortDay(days.at(-1)!.day) : ""}.`
      : `${formatMetric(total, metric)} over ${days.length} days, on ${used} of them. The busiest day was ${shortDay(busiest!.day)} with ${formatMetric(max, metric)}.`;
  return (
    <figure className="space-y-1">
      <svg
        role="img"
        aria-labelledby={`${titleId} ${descId}`}
        data-testid="usage-chart"
        data-metric={metric}
        viewBox={`0 0 ${width} ${HEIGHT}`}
        preserveAspectRatio="none"
        className="h-40 w-full text-sky-600 dark:text-sky-400"
      >
        <title id={titleId}>{`${what} per day`}</title>
        <desc id={descId} data-testid="usage-chart-description">
          {description}
        </desc>
        <line x1={0} x2={width} y1={HEIGHT - 0.5} y2={HEIGHT - 0.5} className="stroke-zinc-300 dark:stroke-zinc-700" strokeWidth={1} />
        {days.map((d, i) => {
          const value = values[i]!;
          // A used day is never invisible, however small beside the busiest.
          const h = value > 0 ? Math.max(2, (value / max) * (HEIGHT - 4)) : 0;
          return (
            <rect
              key={d.day}
              data-testid="usage-bar"
              data-day={d.day}
              data-value={value}
              x={i * 10 + (10 - barWidth) / 2}
              y={HEIGHT - h}
              width={barWidth}
              height={h}
              rx={1}
              className="fill-current"
            >
              <title>{`${shortDay(d.day)}: ${formatMetric(value, metric)}`}</title>
            </rect>
          );
        })}
      </svg>
      <figcaption className="flex justify-between text-xs text-zinc-500 dark:text-zinc-400" aria-hidden="true">
        <span>{days[0] ? shortDay(days[0].day) : ""}</span>
        <span>max {formatMetric(max, metric)}</span>
        <span>{days.at(-1) ? shortDay(days.at(-1)!.day) : ""}</span>
      </figcaption>
    </figure>
  );
}
