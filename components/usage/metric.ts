import type { UsageFigures } from "@/lib/contracts/usage";
import { formatCost } from "@/lib/format/display";

/** What the chart shows: tokens or dollars. */
export type Metric = "tokens" | "cost";

export const metricValue = (row: UsageFigures, metric: Metric) => (metric === "tokens" ? row.tokens : row.costUsd);

/** A figure in full, as the table and the chart's text alternative read it. */
export function formatMetric(value: number, metric: Metric): string {
  return metric === "tokens" ? `${value.toLocaleString("en-US")} tokens` : formatCost(value);
}

/** Exact token counts with separators ("12,345"). */
export const formatCount = (n: number) => n.toLocaleString("en-US");
