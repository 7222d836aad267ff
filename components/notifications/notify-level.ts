"use client";

import { useSyncExternalStore } from "react";
import type { NotifyLevel } from "@/lib/contracts";
import { notificationsApi } from "./notifications-api";

/**
 * This person's notification setting in this page, shared by the watcher that shows
 * notifications and the menu that changes it: read from the server once, then kept as the
 * menu sets it. `null` until it has been read (nothing is shown before).
 */
let level: NotifyLevel | null = null;
let loading = false;
const listeners = new Set<() => void>();

function publish(next: NotifyLevel): void {
  level = next;
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  if (level === null && !loading) {
    loading = true;
    void notificationsApi.level().then((answer) => {
      loading = false;
      if (answer.ok) publish(answer.data.level);
    });
  }
  return () => listeners.delete(listener);
}

export function currentNotifyLevel(): NotifyLevel | null {
  return level;
}

export function useNotifyLevel(): NotifyLevel | null {
  return useSyncExternalStore(subscribe, currentNotifyLevel, () => null);
}

/** Stores the setting; the page follows at once, and goes back if the server refused it. */
export async function changeNotifyLevel(next: NotifyLevel): Promise<string | null> {
  const before = level;
  publish(next);
  const answer = await notificationsApi.setLevel(next);
  if (answer.ok) return null;
  if (before) publish(before);
  return answer.message;
}
