"use client";

import type { NotificationPayload } from "@/lib/contracts";

/** The worker the app registers (its notification listeners are /sw-notifications.js, which it imports). */
const WORKER_URL = "/sw.js";

export function serviceWorkerSupported(): boolean {
  return typeof navigator !== "undefined" && "serviceWorker" in navigator && typeof Notification !== "undefined";
}

let registered: Promise<ServiceWorkerRegistration | null> | null = null;

/**
 * Registers the app's service worker once per page (registering the same script again is
 * harmless, so the installable app's own registration may run too), and follows its
 * requests to open a chat in this window.
 */
export function registerServiceWorker(): Promise<ServiceWorkerRegistration | null> {
  if (!serviceWorkerSupported()) return Promise.resolve(null);
  registered ??= (async () => {
    navigator.serviceWorker.addEventListener("message", onWorkerMessage);
    navigator.serviceWorker.startMessages();
    try {
      await navigator.serviceWorker.register(WORKER_URL);
      return await navigator.serviceWorker.ready;
    } catch {
      return null;
    }
  })();
  return registered;
}

/** Shows a notification through the worker: a page's own `new Notification` is not allowed on phones, and a click then reaches the worker's handler. */
export async function showThroughWorker(notification: NotificationPayload): Promise<void> {
  const registration = await registerServiceWorker();
  if (!registration) return;
  await registration.showNotification(notification.title, {
    body: notification.body,
    tag: notification.tag,
    data: { url: notification.url },
    icon: "/icon-192.png",
  });
}

/** A notification was clicked while this window is open: go to its chat, at its panel. */
function onWorkerMessage(event: MessageEvent): void {
  const message = event.data as { type?: unknown; url?: unknown } | null;
  if (message?.type !== "delegate:open" || typeof message.url !== "string") return;
  const target = new URL(message.url, window.location.origin);
  if (target.origin !== window.location.origin) return;
  if (target.pathname !== window.location.pathname) {
    window.location.assign(target.href);
  } else if (target.hash === window.location.hash) {
    // The same hash sets off no hashchange: the list is asked to seek again all the same.
    window.dispatchEvent(new HashChangeEvent("hashchange"));
  } else {
    window.location.hash = target.hash;
  }
}
