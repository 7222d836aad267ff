"use client";

import { useSyncExternalStore } from "react";

const never = () => () => undefined;

/**
 * False on the server and while the page hydrates, true from then on. For text that
 * depends on the reader's machine (their clock's time zone and locale): the server
 * renders the chat page's HTML in its own, and hydration must find exactly that text.
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    never,
    () => true,
    () => false,
  );
}
