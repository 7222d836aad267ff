"use client";

import { useNow } from "@/components/ui/use-now";
import { formatDuration, parseTime } from "./format";

export interface ElapsedProps {
  startedAt: string;
  endedAt?: string;
  runtimeMs?: number;
  running: boolean;
}

/** Runtime of a run: ticks from `startedAt` while running, then the recorded runtime. */
export function Elapsed({ startedAt, endedAt, runtimeMs, running }: ElapsedProps) {
  const now = useNow(running);
  const ms = elapsedMs({ startedAt, endedAt, runtimeMs, running }, now);
  return (
    <span className="inline-block min-w-[3.5ch] text-right tabular-nums" title={running ? "Running for" : "Runtime"}>
      {formatDuration(ms)}
    </span>
  );
}

export function elapsedMs({ startedAt, endedAt, runtimeMs, running }: ElapsedProps, now: number): number {
  const start = parseTime(startedAt);
  if (running) return start === null ? 0 : Math.max(0, now - start);
  if (runtimeMs !== undefined && runtimeMs > 0) return runtimeMs;
  const end = parseTime(endedAt);
  return start !== null && end !== null ? Math.max(0, end - start) : (runtimeMs ?? 0);
}
