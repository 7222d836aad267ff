import { createHash } from "node:crypto";
import { MAX_PUSH_SUBSCRIPTIONS, type PushSubscriptionInput } from "@/lib/contracts";
import type { Models } from "@/models";

/** A stored subscription, as web-push takes it. */
export interface StoredPushSubscription {
  personId: string;
  endpoint: string;
  keys: { p256dh: string; auth: string };
}

const idOf = (endpoint: string) => createHash("sha256").update(endpoint).digest("base64url");

/** People's Web Push subscriptions in MongoDB (models/push-subscription.ts). */
export class PushSubscriptions {
  constructor(private readonly model: Models["PushSubscription"]) {}

  /** Keeps the browser's subscription for `personId`; past the cap, that person's oldest goes. */
  async add(personId: string, subscription: PushSubscriptionInput): Promise<void> {
    const { endpoint, keys } = subscription;
    await this.model.updateOne(
      { _id: idOf(endpoint) },
      { $set: { personId, endpoint, p256dh: keys.p256dh, auth: keys.auth } },
      { upsert: true },
    );
    const extra = await this.model.find({ personId }, { _id: 1 }).sort({ createdAt: -1 }).skip(MAX_PUSH_SUBSCRIPTIONS).lean();
    if (extra.length > 0) await this.model.deleteMany({ _id: { $in: extra.map((row) => row._id) } });
  }

  /** Forgets the person's subscription at `endpoint`; false when they held none there. */
  async remove(personId: string, endpoint: string): Promise<boolean> {
    const { deletedCount } = await this.model.deleteOne({ _id: idOf(endpoint), personId });
    return deletedCount > 0;
  }

  /** The push service answered that the subscription is gone. */
  async forget(endpoint: string): Promise<void> {
    await this.model.deleteOne({ _id: idOf(endpoint) });
  }

  async of(personIds: readonly string[]): Promise<StoredPushSubscription[]> {
    if (personIds.length === 0) return [];
    const rows = await this.model.find({ personId: { $in: personIds } }).lean();
    return rows.map((row) => ({ personId: row.personId, endpoint: row.endpoint, keys: { p256dh: row.p256dh, auth: row.auth } }));
  }
}
