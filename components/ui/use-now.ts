"use client";

import { useEffect, useState } from "react";

/**
 * Current time, re-read every `intervalMs` while `active`; frozen otherwise so finished
 * rows stay still. Null during server render and hydration, so markup never depends on
 * the clock of the machine that rendered it.
 */
export function useNow(active: boolean, intervalMs = 1_000): number | null {
  const [now, setNow] = useState<number | null>(null);
  useEffect(() => {
    setNow(Date.now());
    if (!active) return;
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [active, intervalMs]);
  return now;
}
