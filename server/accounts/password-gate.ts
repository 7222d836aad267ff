import { expiringRows } from "@/server/db/expiry-index";
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { Models } from "@/models";
import { createSigner } from "./signer";
import { tokenDigest } from "./tokens";

/**
 * The optional APP_PASSWORD gate: one shared password in front of everything. A correct
 * password earns a signed, expiring cookie naming a login session of its own; changing
 * the password invalidates every cookie issued for the old one (the signature covers a
 * fingerprint of it), and logging out ends that one session. Live sessions are kept in
 * MongoDB (under the SHA-256 of their id) and looked up on every check, with no copy in
 * memory: a login made on one process holds on all, and a logout on one ends it on all
 * at once.
 */
export const AUTH_COOKIE = "dlg_auth";
const TOKEN_PATTERN = /^([A-Za-z0-9_-]{22})\.(\d{10,13})\.([A-Za-z0-9_-]{43})$/;

export interface PasswordGate {
  checkPassword(given: string): boolean;
  /** A fresh cookie value for a new login session, valid for `ttlMs`. */
  issue(): Promise<string>;
  /** The login session a cookie value names, or null when it is forged, expired or logged out. */
  verify(cookieValue: string | undefined): Promise<string | null>;
  /** Ends a login session: its cookie no longer verifies, on any process. */
  revoke(sessionId: string): Promise<void>;
  readonly ttlMs: number;
}

export function createPasswordGate(options: {
  password: string;
  secret: string;
  sessions: Models["LoginSession"];
  ttlMs?: number;
  now?: () => number;
}): PasswordGate {
  const { sessions } = options;
  const now = options.now ?? Date.now;
  // Expired logins leave by a TTL index, or by a sweep on each new login where the server has none.
  const expired = expiringRows(sessions.collection, "expiresAt", now);
  const ttlMs = options.ttlMs ?? 30 * 24 * 3600_000;
  const digest = (text: string) => createHash("sha256").update(text).digest();
  const expected = digest(options.password);
  const fingerprint = expected.toString("base64url").slice(0, 16);
  const signer = createSigner(options.secret);
  // The payload names its purpose, so an identity signature (over a bare id) never fits.
  const payload = (sessionId: string, expiry: string) => `auth:${fingerprint}:${sessionId}:${expiry}`;
  return {
    ttlMs,
    // Comparing digests keeps the comparison constant-time whatever the lengths.
    checkPassword: (given) => timingSafeEqual(digest(given), expected),
    async issue() {
      const sessionId = randomBytes(16).toString("base64url");
      const created = now();
      const expiry = created + ttlMs;
      await expired.sweep();
      await sessions.create({ _id: tokenDigest(sessionId), createdAt: new Date(created), expiresAt: new Date(expiry) });
      return `${sessionId}.${expiry}.${signer.sign(payload(sessionId, String(expiry)))}`;
    },
    async verify(cookieValue) {
      const match = cookieValue ? TOKEN_PATTERN.exec(cookieValue) : null;
      if (!match) return null;
      const [, sessionId, expiry, mac] = match;
      // The signature first: a forged or old-password cookie costs no database read.
      if (Number(expiry) < now() || !signer.verify(payload(sessionId!, expiry!), mac!)) return null;
      const live = await sessions.exists({ _id: tokenDigest(sessionId!), expiresAt: { $gte: new Date(now()) } });
      return live ? sessionId! : null;
    },
    async revoke(sessionId) {
      await sessions.deleteOne({ _id: tokenDigest(sessionId) });
    },
  };
}
