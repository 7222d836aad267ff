import webpush from "web-push";
import type { Models } from "@/models";

export interface VapidKeys {
  publicKey: string;
  privateKey: string;
  /** A mailto: or https: URL push services may contact about this app's pushes. */
  subject: string;
}

const KEYS_ID = "vapid";
/** A subject push services accept when the operator gave none (Apple's refuses localhost). */
const PLACEHOLDER_SUBJECT = "mailto:notifications@delegate.invalid";

/** VAPID_SUBJECT, else an https PUBLIC_URL, else a placeholder address. */
export function vapidSubject(subject: string | undefined, publicUrl: string | undefined): string {
  if (subject) return subject;
  return publicUrl?.startsWith("https://") ? publicUrl : PLACEHOLDER_SUBJECT;
}

/**
 * The app's VAPID key pair: the operator's (VAPID_*), or the one kept in MongoDB, made by
 * whichever process needed it first. Made with `$setOnInsert` and read back, so processes
 * starting at once all end up with the first pair written: a browser subscribed under one
 * public key cannot be reached with another.
 */
export async function loadVapidKeys(
  model: Models["VapidKeys"],
  configured: { publicKey?: string; privateKey?: string; subject: string },
): Promise<VapidKeys> {
  if (configured.publicKey && configured.privateKey) {
    return { publicKey: configured.publicKey, privateKey: configured.privateKey, subject: configured.subject };
  }
  let stored = await model.findById(KEYS_ID).lean();
  if (!stored) {
    const made = webpush.generateVAPIDKeys();
    await model.updateOne({ _id: KEYS_ID }, { $setOnInsert: made }, { upsert: true });
    stored = await model.findById(KEYS_ID).lean();
    if (!stored) throw new Error("the VAPID keys could not be stored");
  }
  return { publicKey: stored.publicKey, privateKey: stored.privateKey, subject: configured.subject };
}
