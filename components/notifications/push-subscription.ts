"use client";

import { notificationsApi } from "./notifications-api";

/** What turning push on came to: subscribed, or why not in words a person can act on. */
export type PushResult = { ok: true } | { ok: false; reason: "no-push-service" | "failed"; message: string };

/**
 * Subscribes this browser to Web Push with the server's VAPID key and hands the
 * subscription to the server. A browser without a push service (a headless one, some
 * privacy-minded builds) refuses the subscription: then only an open tab notifies.
 */
export async function subscribeToPush(registration: ServiceWorkerRegistration): Promise<PushResult> {
  if (!("pushManager" in registration)) return noPushService();
  const key = await notificationsApi.publicKey();
  if (!key.ok) return { ok: false, reason: "failed", message: key.message };
  let subscription: PushSubscription;
  try {
    const existing = await registration.pushManager.getSubscription();
    // One made under other VAPID keys (the operator changed them) can no longer be pushed to.
    if (existing && keyOf(existing) !== key.data.publicKey) await existing.unsubscribe();
    subscription =
      existing && keyOf(existing) === key.data.publicKey
        ? existing
        : await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key.data.publicKey });
  } catch {
    return noPushService();
  }
  const stored = await notificationsApi.subscribe(subscription.toJSON());
  return stored.ok ? { ok: true } : { ok: false, reason: "failed", message: stored.message };
}

function noPushService(): PushResult {
  return {
    ok: false,
    reason: "no-push-service",
    message: "This browser has no push service, so notifications come only while a Delegate tab is open (it may be in the background).",
  };
}

/** The VAPID public key a subscription was made with, base64url as the server gives it. */
function keyOf(subscription: PushSubscription): string | null {
  const key = subscription.options.applicationServerKey;
  if (!key) return null;
  let binary = "";
  for (const byte of new Uint8Array(key)) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}
