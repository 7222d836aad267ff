"use client";

import { NOTIFICATION_ROUTES, type NotifyLevel } from "@/lib/contracts";

/** What a route answered, or the server's sentence for why not. */
export type Answer<T> = { ok: true; data: T } | { ok: false; message: string };

async function call<T>(path: string, init?: { method: string; body: unknown }): Promise<Answer<T>> {
  try {
    const res = await fetch(path, {
      method: init?.method ?? "GET",
      headers: init ? { "content-type": "application/json" } : {},
      body: init ? JSON.stringify(init.body) : null,
      credentials: "same-origin",
    });
    const body = (await res.json().catch(() => null)) as (T & { error?: { message?: string } }) | null;
    if (!res.ok || !body) return { ok: false, message: body?.error?.message ?? `The server answered ${res.status}.` };
    return { ok: true, data: body };
  } catch {
    return { ok: false, message: "The server could not be reached." };
  }
}

export const notificationsApi = {
  level: () => call<{ level: NotifyLevel }>(NOTIFICATION_ROUTES.settings),
  setLevel: (level: NotifyLevel) => call<{ level: NotifyLevel }>(NOTIFICATION_ROUTES.settings, { method: "PUT", body: { level } }),
  publicKey: () => call<{ publicKey: string }>(NOTIFICATION_ROUTES.key),
  subscribe: (subscription: PushSubscriptionJSON) =>
    call<{ subscribed: boolean }>(NOTIFICATION_ROUTES.subscribe, { method: "POST", body: subscription }),
};
