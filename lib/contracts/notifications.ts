import { z } from "zod";

/**
 * Browser notifications: which of a chat's moments reach a person whose tab is hidden or
 * closed, their setting, and the Web Push subscriptions the server sends to. The same
 * payload travels by push and is shown by the page itself, so both collapse by `tag`.
 */

/** What can be notified: a turn that finished or failed, a call waiting for an approval or an answer. */
export const NOTICE_KINDS = ["finished", "failed", "approval", "input"] as const;
export const noticeKindSchema = z.enum(NOTICE_KINDS);
export type NoticeKind = z.infer<typeof noticeKindSchema>;

/** `all`: every kind; `approvals`: only what waits for the person (approvals and questions); `off`: nothing. */
export const NOTIFY_LEVELS = ["all", "approvals", "off"] as const;
export const notifyLevelSchema = z.enum(NOTIFY_LEVELS);
export type NotifyLevel = z.infer<typeof notifyLevelSchema>;
/**
 * A person who turns notifications on in the browser wants to hear when the answer they
 * left the tab for is ready, not only when something waits: the browser's own permission
 * is the opt-in, so the app's default is everything.
 */
export const DEFAULT_NOTIFY_LEVEL: NotifyLevel = "all";

export const notificationSettingsSchema = z.strictObject({ level: notifyLevelSchema });
export type NotificationSettings = z.infer<typeof notificationSettingsSchema>;

/** What a notification shows and opens, by push or from the page: plain text, bounded. */
export const notificationPayloadSchema = z.object({
  title: z.string().max(200),
  body: z.string().max(400),
  tag: z.string().max(300),
  /** A path of this app (`/c/<chat>#…`), never another origin. */
  url: z.string().startsWith("/").max(600),
});
export type NotificationPayload = z.infer<typeof notificationPayloadSchema>;

export const MAX_PUSH_ENDPOINT_CHARS = 2_048;
/** Push subscriptions one person keeps (browsers and devices); the oldest goes past it. */
export const MAX_PUSH_SUBSCRIPTIONS = 20;
const base64url = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .regex(/^[A-Za-z0-9_-]+={0,2}$/, "must be base64url");

/**
 * A browser's `PushSubscription.toJSON()`. The endpoint is an address the server will
 * POST to: its scheme and host are checked again where it is stored and where it is sent.
 */
export const pushSubscriptionSchema = z.object({
  endpoint: z.url({ protocol: /^https?$/ }).max(MAX_PUSH_ENDPOINT_CHARS),
  expirationTime: z.number().nullable().optional(),
  // p256dh is an uncompressed P-256 point (65 bytes, 87 characters), auth 16 bytes (22).
  keys: z.object({ p256dh: base64url(128), auth: base64url(64) }),
});
export type PushSubscriptionInput = z.infer<typeof pushSubscriptionSchema>;

export const pushUnsubscribeSchema = z.strictObject({ endpoint: z.string().min(1).max(MAX_PUSH_ENDPOINT_CHARS) });

export const NOTIFICATION_ROUTES = {
  /** GET: `{ publicKey }`, the VAPID key a browser subscribes with. */
  key: "/api/notifications/key",
  /** GET: `{ level }`; PUT `{ level }`. */
  settings: "/api/notifications/settings",
  /** POST a subscription: stored for the person (`{ subscribed: true }`). */
  subscribe: "/api/notifications/subscriptions",
  /** POST `{ endpoint }`: forgotten (`{ removed }`). */
  unsubscribe: "/api/notifications/subscriptions/remove",
} as const;
