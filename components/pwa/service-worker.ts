"use client";

/**
 * The app-shell worker (public/sw.js), registered in production builds only: a worker
 * in development would serve stale chunks over Next's hot reload. Its URL names the app's
 * version, which names its caches: a new version installs a new worker that drops the old ones.
 */
export const SERVICE_WORKER_PATH = "/sw.js";

function supported(): boolean {
  return process.env.NODE_ENV === "production" && typeof navigator !== "undefined" && "serviceWorker" in navigator;
}

export function registerServiceWorker(version: string): Promise<ServiceWorkerRegistration | null> {
  if (!supported()) return Promise.resolve(null);
  // updateViaCache "none": the browser checks sw.js, and the script it imports, past any HTTP cache.
  return navigator.serviceWorker
    .register(`${SERVICE_WORKER_PATH}?v=${encodeURIComponent(version)}`, { scope: "/", updateViaCache: "none" })
    .catch(() => null);
}

/**
 * The active registration once the worker runs, or null where there is none (development,
 * a browser without workers). For features that build on the same worker, such as push
 * notifications: there is one worker per scope, and this is it.
 */
export function serviceWorkerReady(): Promise<ServiceWorkerRegistration | null> {
  if (!supported()) return Promise.resolve(null);
  return navigator.serviceWorker.ready;
}
