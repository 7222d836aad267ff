import { Schema, type Connection, type InferSchemaType } from "mongoose";

/**
 * A browser's Web Push subscription, for the person who made it. Keyed by the SHA-256 of
 * its endpoint: a browser subscribes once whoever signs in on it, so the latest person to
 * subscribe it holds it (a shared computer does not tell the one before).
 */
const pushSubscriptionSchema = new Schema(
  {
    _id: { type: String, required: true },
    personId: { type: String, required: true },
    endpoint: { type: String, required: true },
    p256dh: { type: String, required: true },
    auth: { type: String, required: true },
  },
  { timestamps: true, versionKey: false },
);
// A notice reads its audience's subscriptions; a new one past the cap drops that person's oldest.
pushSubscriptionSchema.index({ personId: 1, createdAt: 1 });

export type PushSubscriptionRecord = InferSchemaType<typeof pushSubscriptionSchema>;
export function definePushSubscriptionModel(connection: Connection) {
  return connection.model("PushSubscription", pushSubscriptionSchema);
}

/**
 * The app's VAPID key pair, made by the first process that needed it and read by every
 * other (one document, `_id: "vapid"`): a browser's subscriptions are tied to the public
 * key, so it must outlive restarts. Unused when VAPID_* are set.
 */
const vapidKeysSchema = new Schema(
  {
    _id: { type: String, required: true },
    publicKey: { type: String, required: true },
    privateKey: { type: String, required: true },
  },
  { timestamps: true, versionKey: false },
);

export function defineVapidKeysModel(connection: Connection) {
  return connection.model("VapidKeys", vapidKeysSchema);
}
