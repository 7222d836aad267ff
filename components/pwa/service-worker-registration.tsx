"use client";

import { useEffect } from "react";
import { registerServiceWorker } from "./service-worker";

/** Mounted once in the root layout: registers the app-shell worker after the page has loaded. */
export function ServiceWorkerRegistration({ version }: { version: string }) {
  useEffect(() => {
    void registerServiceWorker(version);
  }, [version]);
  return null;
}
