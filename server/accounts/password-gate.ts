import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { createSigner } from "./signer";

/**
 * The optional APP_PASSWORD gate: one shared password in front of everything. A correct
 * password earns a signed, expiring cookie naming a login session of its own; changing
 * the password invalidates every cookie issued for the old one (the signature covers a
 * fingerprint of it), and logging out ends that one session. Live sessions are kept in
 * memory only, so a restart logs everyone out: a revocation cannot be lost that way.
 */
export const AUTH_COOKIE = "dlg_auth";
const TOKEN_PATTERN = /^([A-Za-z0-9_-]{22})\.(\d{10,13})\.([A-Za-z0-9_-]{43})$/;

export interface PasswordGate {
  checkPassword(given: string): boolean;
  /** A fresh cookie value for a new login session, valid for `ttlMs`. */
  issue(): string;
  /** The login session a cookie value names, or null when it is forged, expired or logged out. */
  verify(cookieValue: string | undefined): string | null;
  /** Ends a login session: its cookie no longer verifies. */
  revoke(sessionId: string): void;
  readonly ttlMs: number;
}

export function createPasswordGate(options: { password: string; secret: string; ttlMs?: number; now?: () => number }): PasswordGate {
  const now = options.now ?? Date.now;
  const ttlMs = options.ttlMs ?? 30 * 24 * 3600_000;
  const digest = (text: string) => createHash("sha256").update(text).digest();
  const expected = digest(options.password);
  const fingerprint = expected.toString("base64url").slice(0, 16);
  const signer = createSigner(options.secret);
  // The payload names its purpose, so an identity signature (over a bare id) never fits.
  const payload = (sessionId: string, expiry: string) => `auth:${fingerprint}:${sessionId}:${expiry}`;
  /** Live login sessions and when each expires. */
  const live = new Map<string, number>();
  return {
    ttlMs,
    // Comparing digests keeps the comparison constant-time whatever the lengths.
    checkPassword: (given) => timingSafeEqual(digest(given), expected),
    issue() {
      for (const [id, expiry] of live) if (expiry < now()) live.delete(id);
      const sessionId = randomBytes(16).toString("base64url");
      const expiry = now() + ttlMs;
      live.set(sessionId, expiry);
      return `${sessionId}.${expiry}.${signer.sign(payload(sessionId, String(expiry)))}`;
    },
    verify(cookieValue) {
      const match = cookieValue ? TOKEN_PATTERN.exec(cookieValue) : null;
      if (!match) return null;
      const [, sessionId, expiry, mac] = match;
      const valid = Number(expiry) >= now() && live.has(sessionId!) && signer.verify(payload(sessionId!, expiry!), mac!);
      return valid ? sessionId! : null;
    },
    revoke(sessionId) {
      live.delete(sessionId);
    },
  };
}
