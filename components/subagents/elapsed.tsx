"use client";

import { formatDuration, parseTime } from "@/lib/format/display";
import { useNow } from "@/components/ui/use-now";

export interface ElapsedProps {
  startedAt: string;
  endedAt?: string;
  runtimeMs?: number;
  running: boolean;
  /** Headers reserve width so the ticking number does not shift its neighbours. */
  fixedWidth?: boolean;
}

/** Runtime of a run: ticks from `startedAt` while running, then the recorded runtime. */
export function Elapsed({ startedAt, endedAt, runtimeMs, running, fixedWidth = false }: ElapsedProps) {
  const now = useNow(running);
  const ms = running && now === null ? null : elapsedMs({ startedAt, endedAt, runtimeMs, running }, now ?? 0);
  return (
    <span className={`tabular-nums ${fixedWidth ? "inline-block min-w-[4ch] text-right" : ""}`} title={running ? "Running for" : "Runtime"}>
      {ms === null ? "…" : formatDuration(ms)}
    </span>
  );
}

export function elapsedMs(
  { startedAt, endedAt, runtimeMs, running }: Pick<ElapsedProps, "startedAt" | "endedAt" | "runtimeMs" | "running">,
  now: number,
): number {
  const start = parseTime(startedAt);
  if (running) return start === null ? 0 : Math.max(0, now - start);
  if (runtimeMs !== undefined && runtimeMs > 0) return runtimeMs;
  const end = parseTime(endedAt);
  return start !== null && end !== null ? Math.max(0, end - start) : (runtimeMs ?? 0);
}
