import { createHash, randomBytes } from "node:crypto";

/**
 * Secrets and ids of the accounts layer. Tokens are found by their SHA-256 digest, an
 * index look-up of a value the attacker cannot steer byte by byte, so no token is ever
 * compared with `===` against a stored secret.
 */

/** A cookie or link secret: 32 random bytes, base64url (43 characters). */
export function newToken(): string {
  return randomBytes(32).toString("base64url");
}

/** What is stored and looked up instead of a token. */
export function tokenDigest(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

/** Account ids: `acc_` + 22 base64url characters, never the shape of a cookie identity. */
export const ACCOUNT_ID_PATTERN = /^acc_[A-Za-z0-9_-]{22}$/;
export function newAccountId(): string {
  return `acc_${randomBytes(16).toString("base64url")}`;
}

/** The id a sign-in session or a link is shown and revoked by (never its secret). */
export function newPublicId(): string {
  return randomBytes(12).toString("base64url");
}

/** A token is 43 base64url characters; anything else is not one (and is not looked up). */
export const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;
