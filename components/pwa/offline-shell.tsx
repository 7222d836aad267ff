"use client";

import { useEffect } from "react";
import { useOnline } from "./use-offline";

/** How often the page asks whether the server answers again, while the browser says it is online. */
const RETRY_MS = 5_000;
/** Answers 200 once the server can serve pages (server/http/health-routes.ts); never stored by the worker. */
const READY_PATH = "/api/health/ready";

/**
 * The page the app-shell worker shows in place of any page the network could not bring:
 * the app's frame and what is going on, and nothing of anyone's chats (it is stored on the
 * device for everyone who uses it). It reloads the page that was asked for once the
 * browser is back online, or, online all along, once the server answers again.
 */
export function OfflineShell() {
  const online = useOnline(false);
  useEffect(() => {
    const reload = () => window.location.reload();
    window.addEventListener("online", reload);
    return () => window.removeEventListener("online", reload);
  }, []);
  useEffect(() => {
    if (!online) return;
    const timer = setInterval(() => {
      fetch(READY_PATH, { cache: "no-store" }).then(
        (response) => response.ok && window.location.reload(),
        () => undefined,
      );
    }, RETRY_MS);
    return () => clearInterval(timer);
  }, [online]);
  return (
    <div className="flex h-dvh flex-col">
      <header className="flex h-12 shrink-0 items-center gap-2 border-b border-zinc-200 px-4 dark:border-zinc-800">
        {/* eslint-disable-next-line @next/next/no-img-element -- a static icon the worker keeps; Next's image route is not offline. */}
        <img src="/icon.svg" alt="" width={20} height={20} />
        <h1 className="text-sm font-medium text-zinc-800 dark:text-zinc-200">Delegate</h1>
      </header>
      <main className="flex flex-1 items-center justify-center px-6">
        <div role="status" data-testid="offline-shell" className="max-w-md space-y-3 text-center">
          <p className="text-base font-medium text-zinc-900 dark:text-zinc-100">
            {online
              ? "Delegate cannot reach its server — it will reconnect when the server answers."
              : "You are offline — Delegate will reconnect when the network is back."}
          </p>
          <p className="text-sm text-zinc-600 dark:text-zinc-400">
            Chats are not stored on this device, so they show again once Delegate is back. Messages already sent are kept on the server.
          </p>
          <button
            type="button"
            onClick={() => window.location.reload()}
            className="rounded-md bg-sky-700 px-3 py-1.5 text-sm font-medium text-white hover:bg-sky-800"
          >
            Try again
          </button>
        </div>
      </main>
    </div>
  );
}
