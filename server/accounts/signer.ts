import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * The one place cookies are signed: HMAC-SHA256 under the session secret, base64url, and
 * a constant-time check. The identity cookie and the APP_PASSWORD cookie both use it;
 * each signs its own payload shape, so a signature for one never verifies as the other.
 */
export interface Signer {
  /** The signature of `payload` (43 base64url characters). */
  sign(payload: string): string;
  /** Whether `signature` is the signature of `payload`, compared in constant time. */
  verify(payload: string, signature: string): boolean;
}

export function createSigner(secret: string): Signer {
  const sign = (payload: string) => createHmac("sha256", secret).update(payload).digest("base64url");
  return {
    sign,
    verify(payload, signature) {
      const given = Buffer.from(signature);
      const expected = Buffer.from(sign(payload));
      return given.length === expected.length && timingSafeEqual(given, expected);
    },
  };
}
