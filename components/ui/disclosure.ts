"use client";

import { useCallback, useSyncExternalStore } from "react";

/**
 * Open/closed state of panels and chips, keyed by run or call id and kept outside the
 * component tree: streaming, a resync snapshot or a remount must not fold up what the
 * person opened. Ids are unique, so one page-wide store is enough.
 */
const state = new Map<string, boolean>();
const listeners = new Set<() => void>();

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function setOpen(key: string, open: boolean): void {
  state.set(key, open);
  for (const listener of listeners) listener();
}

export function useDisclosure(key: string, defaultOpen = false): [boolean, (open: boolean) => void] {
  const open = useSyncExternalStore(
    subscribe,
    () => state.get(key) ?? defaultOpen,
    () => defaultOpen,
  );
  const set = useCallback((next: boolean) => setOpen(key, next), [key]);
  return [open, set];
}
