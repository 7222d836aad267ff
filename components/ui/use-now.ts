"use client";

import { useSyncExternalStore } from "react";

/**
 * One clock for the whole page: every ticking figure reads the same `now`, updated once a
 * second by one timer while anything listens, so two timers of one run (a panel's header
 * and its stats) can never disagree. Null during server render and hydration, so markup
 * never depends on the clock of the machine that rendered it; frozen when `active` is
 * false so finished rows stay still.
 */
const TICK_MS = 1_000;
const listeners = new Set<() => void>();
let timer: ReturnType<typeof setInterval> | undefined;
let current = 0;

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  if (!timer) {
    current = Date.now();
    timer = setInterval(() => {
      current = Date.now();
      for (const l of listeners) l();
    }, TICK_MS);
  }
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0 && timer) {
      clearInterval(timer);
      timer = undefined;
    }
  };
}

const still = () => () => undefined;
/** Stable between ticks (React compares snapshots); refreshed when the first listener subscribes. */
const snapshot = () => (current ||= Date.now());
const serverSnapshot = () => null;

export function useNow(active: boolean): number | null {
  return useSyncExternalStore(active ? subscribe : still, active ? snapshot : frozen, serverSnapshot);
}

/** A finished row needs no clock, only a stable value that is not null once hydrated. */
const FROZEN = 1;
const frozen = () => FROZEN;
