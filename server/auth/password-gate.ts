import { createHash, timingSafeEqual } from "node:crypto";
import { createSigner } from "./signer";

/**
 * The optional APP_PASSWORD gate: one shared password in front of everything. A correct
 * password earns a signed, expiring cookie; changing the password invalidates every
 * cookie issued for the old one (the signature covers a fingerprint of it).
 */
export const AUTH_COOKIE = "dlg_auth";
const TOKEN_PATTERN = /^(\d{10,13})\.([A-Za-z0-9_-]{43})$/;

export interface PasswordGate {
  checkPassword(given: string): boolean;
  /** A fresh cookie value, valid for `ttlMs`. */
  issue(): string;
  verify(cookieValue: string | undefined): boolean;
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
  const payload = (expiry: string) => `auth:${fingerprint}:${expiry}`;
  return {
    ttlMs,
    // Comparing digests keeps the comparison constant-time whatever the lengths.
    checkPassword: (given) => timingSafeEqual(digest(given), expected),
    issue() {
      const expiry = String(now() + ttlMs);
      return `${expiry}.${signer.sign(payload(expiry))}`;
    },
    verify(cookieValue) {
      const match = cookieValue ? TOKEN_PATTERN.exec(cookieValue) : null;
      if (!match) return false;
      const [, expiry, mac] = match;
      return Number(expiry) >= now() && signer.verify(payload(expiry!), mac!);
    },
  };
}

/** The login form and the server's redirect to it judge `?next=` the same way. */
export { safeNextPath } from "@/components/auth/safe-next";
