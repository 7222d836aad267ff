"use client";

import { useCallback, useSyncExternalStore } from "react";

/**
 * Open/closed state of panels and chips, keyed by run or call id and kept outside the
 * component tree: streaming, a resync snapshot or a remount must not fold up what the
 * person opened. Ids are unique, so one page-wide store is enough. It is also kept in
 * sessionStorage, so a reload finds the same panels open.
 */
const STORAGE_KEY = "delegate:disclosure";
/** Only the most recent choices are kept; the oldest are forgotten first. */
const MAX_KEPT = 500;
const state = new Map<string, boolean>(load());
const listeners = new Set<() => void>();

function load(): [string, boolean][] {
  if (typeof window === "undefined") return [];
  try {
    const saved: unknown = JSON.parse(window.sessionStorage.getItem(STORAGE_KEY) ?? "[]");
    return Array.isArray(saved)
      ? saved.filter((e): e is [string, boolean] => Array.isArray(e) && typeof e[0] === "string" && typeof e[1] === "boolean")
      : [];
  } catch {
    return [];
  }
}

function save(): void {
  try {
    window.sessionStorage.setItem(STORAGE_KEY, JSON.stringify([...state].slice(-MAX_KEPT)));
  } catch {
    // Storage full or disabled: the page still works, it just forgets on reload.
  }
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function setOpen(key: string, open: boolean): void {
  // Re-inserting moves the key to the end, so trimming drops the oldest choices.
  state.delete(key);
  state.set(key, open);
  save();
  for (const listener of listeners) listener();
}

/** Opens or folds a panel from outside it (e.g. to reveal a call waiting for approval). */
export function setDisclosure(key: string, open: boolean): void {
  setOpen(key, open);
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
