import webpush from "web-push";
import type { NotificationPayload } from "@/lib/contracts";
import type { StoredPushSubscription } from "./push-subscriptions";
import type { VapidKeys } from "./vapid-keys";

/** `gone`: the push service no longer knows the subscription (404, 410): it should be forgotten. */
export type PushOutcome = { outcome: "sent" } | { outcome: "gone"; status: number } | { outcome: "failed"; reason: string };

export interface PushSenderOptions {
  keys: VapidKeys;
  /** The guarded fetch (server/net/guarded-fetch.ts): an endpoint is an address a browser chose. */
  fetch: typeof fetch;
  /** How long a push service keeps a push for a device that is offline. */
  ttlSeconds: number;
}

/**
 * Sends one notification to one subscription: web-push signs the VAPID JWT and encrypts
 * the payload (aes128gcm, RFC 8291), and the request goes through the guarded fetch
 * rather than web-push's own client, so the endpoint's address is checked like any
 * other address from outside. Never throws: a failure is an outcome.
 */
export function pushSender(options: PushSenderOptions) {
  const { publicKey, privateKey, subject } = options.keys;
  return async (subscription: StoredPushSubscription, payload: NotificationPayload, urgency: "high" | "normal"): Promise<PushOutcome> => {
    try {
      const details = webpush.generateRequestDetails(
        { endpoint: subscription.endpoint, keys: subscription.keys },
        JSON.stringify(payload),
        { vapidDetails: { subject, publicKey, privateKey }, TTL: options.ttlSeconds, urgency, contentEncoding: "aes128gcm" },
      );
      const headers = new Headers();
      for (const [name, value] of Object.entries(details.headers)) headers.set(name, String(value));
      const response = await options.fetch(details.endpoint, {
        method: "POST",
        headers,
        body: details.body ? new Uint8Array(details.body) : null,
        redirect: "error",
      });
      await response.body?.cancel();
      if (response.status === 404 || response.status === 410) return { outcome: "gone", status: response.status };
      if (response.status < 200 || response.status >= 300)
        return { outcome: "failed", reason: `the push service answered ${response.status}` };
      return { outcome: "sent" };
    } catch (error) {
      return { outcome: "failed", reason: error instanceof Error ? error.message : String(error) };
    }
  };
}
