"use client";

import type { NotificationPayload } from "@/lib/contracts";
import { serviceWorkerReady } from "@/components/pwa/service-worker";

export function serviceWorkerSupported(): boolean {
  return typeof navigator !== "undefined" && "serviceWorker" in navigator && typeof Notification !== "undefined";
}

let registered: Promise<ServiceWorkerRegistration | null> | null = null;

/**
 * The app's one service worker (public/sw.js, which imports the notification listeners of
 * /sw-notifications.js; the installable app registers it), once it runs, and from then on
 * this page follows the worker's requests to open a chat in this window. Null where there
 * is no worker (development builds, a browser without workers).
 */
export function notificationWorker(): Promise<ServiceWorkerRegistration | null> {
  if (!serviceWorkerSupported()) return Promise.resolve(null);
  registered ??= (async () => {
    navigator.serviceWorker.addEventListener("message", onWorkerMessage);
    navigator.serviceWorker.startMessages();
    return serviceWorkerReady().catch(() => null);
  })();
  return registered;
}

/** Shows a notification through the worker: a page's own `new Notification` is not allowed on phones, and a click then reaches the worker's handler. */
export async function showThroughWorker(notification: NotificationPayload): Promise<void> {
  const registration = await notificationWorker();
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
