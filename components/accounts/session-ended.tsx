"use client";

import { usePathname } from "next/navigation";
import { useEffect } from "react";
import { clearCachedChatData } from "@/components/pwa/clear-cached-data";
import { ACCOUNT_PAGES } from "@/lib/contracts/account";
import { AlertIcon } from "@/components/ui/icons";

/**
 * The server ended this browser's sign-in and cut its connection. Said once, plainly, with
 * the way back in (and back to this chat afterwards) instead of an endless "Reconnecting…".
 * A sign-out like any other: what scripts cached for this person goes at once.
 */
export function SessionEnded() {
  const pathname = usePathname();
  useEffect(() => {
    void clearCachedChatData();
  }, []);
  const href = `${ACCOUNT_PAGES.signIn}?next=${encodeURIComponent(pathname || "/")}`;
  return (
    <div
      role="alert"
      data-testid="session-ended"
      className="flex flex-wrap items-center gap-x-3 gap-y-2 border-b border-amber-200 bg-amber-50 px-4 py-2.5 text-sm text-amber-900 dark:border-amber-900/60 dark:bg-amber-950/40 dark:text-amber-200"
    >
      <AlertIcon className="shrink-0" />
      <span className="min-w-0 flex-1">You were signed out of this browser, so the chat stopped updating. Nothing you had is lost.</span>
      <a
        href={href}
        data-testid="sign-in-again"
        className="rounded-md bg-amber-800 px-3 py-1.5 text-sm font-medium text-white hover:bg-amber-900 dark:bg-amber-300 dark:text-amber-950 dark:hover:bg-amber-200"
      >
        Sign in again
      </a>
    </div>
  );
}
