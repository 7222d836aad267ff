"use client";

import { useState } from "react";
import { clearCachedChatData } from "@/components/pwa/clear-cached-data";

/** Shown only when APP_PASSWORD is set; clears the login cookie and returns to the login page. */
export function LogoutButton() {
  const [pending, setPending] = useState(false);
  const logout = async () => {
    setPending(true);
    try {
      await fetch("/api/logout", { method: "POST", credentials: "same-origin" });
    } finally {
      await clearCachedChatData();
      // A full page load: nothing the signed-out person's pages held stays in memory.
      // eslint-disable-next-line @next/next/no-location-assign-relative-destination
      window.location.assign("/login");
    }
  };
  return (
    <button
      type="button"
      data-testid="logout"
      onClick={logout}
      disabled={pending}
      className="rounded-md px-2 py-1.5 text-xs font-medium text-zinc-600 hover:bg-zinc-100 hover:text-zinc-900 disabled:opacity-50 dark:text-zinc-300 dark:hover:bg-zinc-800 dark:hover:text-zinc-100"
    >
      Log out
    </button>
  );
}
