// How the panels and the Markdown export show durations, token counts, costs, end reasons
// and tool arguments: pure functions, shared by components/ and lib/export/.
import type { EndReason, TurnStats } from "@/lib/contracts";

/** "850ms", "12.3s", "4m 05s", "1h 02m": short enough for a panel header. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return "0s";
  if (ms < 1_000) return `${Math.round(ms)}ms`;
  const totalSeconds = ms / 1_000;
  if (totalSeconds < 60) return `${totalSeconds < 10 ? totalSeconds.toFixed(1) : Math.floor(totalSeconds)}s`;
  const s = Math.floor(totalSeconds) % 60;
  const m = Math.floor(totalSeconds / 60) % 60;
  const h = Math.floor(totalSeconds / 3_600);
  if (h > 0) return `${h}h ${String(m).padStart(2, "0")}m`;
  return `${m}m ${String(s).padStart(2, "0")}s`;
}

export function formatTokens(n: number): string {
  if (n < 1_000) return String(n);
  if (n < 1_000_000) return `${(n / 1_000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

export function formatCost(cost: number): string {
  if (cost === 0) return "$0";
  if (cost < 0.01) return `$${cost.toFixed(4)}`;
  return `$${cost.toFixed(2)}`;
}

export function totalTokens(stats: TurnStats | undefined): number {
  if (!stats) return 0;
  return stats.chat.inputTokens + stats.chat.outputTokens + stats.system.inputTokens + stats.system.outputTokens;
}

const END_REASON_LABELS: Record<EndReason, string> = {
  completed: "Completed",
  failed: "Failed",
  killed: "Stopped",
  watchdog_timeout: "Timed out (watchdog)",
  ghost_sweep: "Ended by restart (ghost sweep)",
  budget_exceeded: "Out of budget",
};

export function endReasonLabel(reason: EndReason): string {
  return END_REASON_LABELS[reason];
}

const END_REASON_SHORT: Record<EndReason, string> = {
  completed: "completed",
  failed: "failed",
  killed: "killed",
  watchdog_timeout: "watchdog timeout",
  ghost_sweep: "ghost sweep",
  budget_exceeded: "out of budget",
};

/** A word or two for the collapsed header, so how a run ended is visible without opening it. */
export function endReasonShort(reason: EndReason): string {
  return END_REASON_SHORT[reason];
}

/** Tool arguments arrive as the model wrote them; indent valid JSON, show anything else verbatim. */
export function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** A one-line hint of a call's arguments for a collapsed chip: the first string argument. */
export function argumentHint(parameters: string, max = 60): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(parameters);
  } catch {
    return truncate(parameters, max);
  }
  if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) {
    for (const value of Object.values(parsed)) {
      if (typeof value === "string" && value.trim()) return truncate(value.trim(), max);
    }
  }
  return "";
}

export function truncate(text: string, max: number): string {
  const oneLine = text.split("\n").join(" ");
  return oneLine.length > max ? `${oneLine.slice(0, max - 1)}…` : oneLine;
}

export function parseTime(iso: string | undefined): number | null {
  if (!iso) return null;
  const t = Date.parse(iso);
  return Number.isNaN(t) ? null : t;
}
