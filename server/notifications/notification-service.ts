import { AppError, type AgentEvent, type NotifyLevel, type PushSubscriptionInput } from "@/lib/contracts";
import type { Logger } from "@/lib/log";
import { NoticeTracker, type Notice } from "@/lib/notifications/notice";
import { notificationOf, urgencyOf, wants } from "@/lib/notifications/notification-text";
import type { Models } from "@/models";
import { guardedFetch } from "@/server/net/guarded-fetch";
import { normalizeHost } from "@/lib/tools/checked-target";
import { NotifyLevels } from "./notify-levels";
import { pushSender, type PushOutcome } from "./push-sender";
import { PushSubscriptions, type StoredPushSubscription } from "./push-subscriptions";
import { loadVapidKeys, type VapidKeys } from "./vapid-keys";

/** Who hears of a chat's notices: its owner, and (with members) whoever may act in it. */
export type AudienceOf = (sessionId: string) => Promise<string[]>;

export interface NotificationServiceDeps {
  models: Pick<Models, "PushSubscription" | "VapidKeys" | "PersonSettings" | "Session">;
  /** VAPID_*: the operator's key pair, or none (made once and kept in MongoDB); the subject always. */
  vapid: { publicKey?: string; privateKey?: string; subject: string };
  /**
   * Hosts a push endpoint may name although they are private or plain http (a test's
   * loopback push service). Empty in production: endpoints are https on public addresses.
   */
  allowHosts?: readonly string[];
  /** Absent: the chat's owner alone (the merge with members wires who may act). */
  audienceOf?: AudienceOf;
  /**
   * Whether the person has a tab open on the chat now: that page shows the notification
   * itself when it is hidden, and needs none when it is seen, so no push is sent.
   */
  watching?: (personId: string, sessionId: string) => Promise<boolean>;
  /** How long a push service keeps a push for an offline device; default a day. */
  ttlSeconds?: number;
  log?: Pick<Logger, "warn" | "info">;
}

const DEFAULT_TTL_S = 24 * 3_600;
/** Longest a push service may take to take a push: a slow one must not pile up sends. */
const PUSH_TIMEOUT_MS = 10_000;

/**
 * Browser notifications on the server: each person's setting, their Web Push
 * subscriptions, the VAPID keys, and the pushes a chat's notices send. `observe` sees
 * every event of the turns this process runs (once per event across a cluster) and never
 * throws nor waits: a push that fails is logged and the turn goes on.
 */
export class NotificationService {
  private readonly subscriptions: PushSubscriptions;
  private readonly levels: NotifyLevels;
  private readonly tracker = new NoticeTracker();
  private readonly allowHosts: ReadonlySet<string>;
  private readonly fetch: typeof fetch;
  private keys?: Promise<VapidKeys>;
  private readonly sending = new Set<Promise<void>>();

  constructor(private readonly deps: NotificationServiceDeps) {
    this.subscriptions = new PushSubscriptions(deps.models.PushSubscription);
    this.levels = new NotifyLevels(deps.models.PersonSettings);
    this.allowHosts = new Set((deps.allowHosts ?? []).map(normalizeHost));
    this.fetch = guardedFetch({ allowHosts: deps.allowHosts ?? [], httpsOnly: true, timeoutMs: PUSH_TIMEOUT_MS, maxBytes: 64 * 1024 });
  }

  /** The VAPID public key a browser subscribes with (made and stored on first use). */
  async publicKey(): Promise<string> {
    return (await this.vapidKeys()).publicKey;
  }

  level(personId: string): Promise<NotifyLevel> {
    return this.levels.of(personId);
  }

  setLevel(personId: string, level: NotifyLevel): Promise<NotifyLevel> {
    return this.levels.set(personId, level);
  }

  async subscribe(personId: string, subscription: PushSubscriptionInput): Promise<void> {
    const url = new URL(subscription.endpoint);
    const allowed = this.allowHosts.has(normalizeHost(url.hostname));
    if (url.protocol !== "https:" && !allowed) throw new AppError("bad_request", "A push endpoint must be an https:// URL.");
    if (url.username || url.password) throw new AppError("bad_request", "A push endpoint must not carry a user name or password.");
    await this.subscriptions.add(personId, subscription);
  }

  unsubscribe(personId: string, endpoint: string): Promise<boolean> {
    return this.subscriptions.remove(personId, endpoint);
  }

  observe(event: AgentEvent, sessionId: string): void {
    const notice = this.tracker.observe(event);
    if (!notice) return;
    const sent = this.push(sessionId, notice)
      .catch((error: unknown) => this.deps.log?.warn("could not send the chat's notifications", { sessionId, error: String(error) }))
      .finally(() => this.sending.delete(sent));
    this.sending.add(sent);
  }

  /** Settles once every push started so far has its answer. */
  async idle(): Promise<void> {
    while (this.sending.size > 0) await Promise.all([...this.sending]);
  }

  private vapidKeys(): Promise<VapidKeys> {
    this.keys ??= loadVapidKeys(this.deps.models.VapidKeys, this.deps.vapid).catch((error: unknown) => {
      // Tried again on the next need: the database may be back.
      this.keys = undefined;
      throw error;
    });
    return this.keys;
  }

  private async push(sessionId: string, notice: Notice): Promise<void> {
    const chat = await this.deps.models.Session.findById(sessionId, { ownerId: 1, title: 1 }).lean();
    if (!chat) return;
    const audience = this.deps.audienceOf ? await this.deps.audienceOf(sessionId) : [chat.ownerId];
    const told = await this.listeners(audience, sessionId, notice);
    if (told.length === 0) return;
    const subscriptions = await this.subscriptions.of(told);
    if (subscriptions.length === 0) return;
    const send = pushSender({ keys: await this.vapidKeys(), fetch: this.fetch, ttlSeconds: this.deps.ttlSeconds ?? DEFAULT_TTL_S });
    const payload = notificationOf(sessionId, chat.title, notice);
    await Promise.all(
      subscriptions.map(async (subscription) => this.settle(subscription, await send(subscription, payload, urgencyOf(notice.kind)))),
    );
  }

  /** The people of the audience whose setting takes this kind and who have no tab on the chat. */
  private async listeners(audience: readonly string[], sessionId: string, notice: Notice): Promise<string[]> {
    const kept = await Promise.all(
      [...new Set(audience)].map(async (personId) => {
        if (!wants(await this.levels.of(personId), notice.kind)) return null;
        // Unknown (another process did not answer): pushed, since a page that also shows it collapses the two by tag.
        if (await this.deps.watching?.(personId, sessionId).catch(() => false)) return null;
        return personId;
      }),
    );
    return kept.filter((personId): personId is string => personId !== null);
  }

  private async settle(subscription: StoredPushSubscription, result: PushOutcome): Promise<void> {
    if (result.outcome === "gone") {
      await this.subscriptions.forget(subscription.endpoint);
      this.deps.log?.info("a push subscription is gone: forgotten", { status: result.status });
    } else if (result.outcome === "failed") {
      this.deps.log?.warn("a push notification could not be sent", { host: new URL(subscription.endpoint).host, reason: result.reason });
    }
  }
}
