import { stringifySetCookie } from "cookie";
import { randomBytes } from "node:crypto";
import { createSigner } from "./signer";

/**
 * A browser that has logged in before carries a signed device id (sent only to the login
 * route), and its login attempts are throttled under that id instead of its address. So
 * someone guessing from the same address (a shared NAT, a hostile page on the same
 * machine) can lock that address, but not a person whose browser already knows the
 * password. The cookie grants nothing else: it is not a login.
 */
export const DEVICE_COOKIE = "dlg_device";
const ONE_YEAR_S = 365 * 24 * 3600;
const TOKEN_PATTERN = /^([A-Za-z0-9_-]{24})\.([A-Za-z0-9_-]{43})$/;

export interface KnownDevices {
  /** A new device cookie value. */
  mint(): string;
  /** The device id of a cookie value, or null when it is missing or forged. */
  verify(cookieValue: string | undefined): string | null;
}

export function createKnownDevices(secret: string): KnownDevices {
  const signer = createSigner(secret);
  // The payload names its purpose, so no other cookie's signature fits.
  const payload = (id: string) => `device:${id}`;
  return {
    mint() {
      const id = randomBytes(18).toString("base64url");
      return `${id}.${signer.sign(payload(id))}`;
    },
    verify(cookieValue) {
      const match = cookieValue ? TOKEN_PATTERN.exec(cookieValue) : null;
      return match && signer.verify(payload(match[1]!), match[2]!) ? match[1]! : null;
    },
  };
}

export function deviceCookieHeader(cookieValue: string, secure: boolean): string {
  return stringifySetCookie(DEVICE_COOKIE, cookieValue, {
    path: "/api/login",
    httpOnly: true,
    sameSite: "strict",
    maxAge: ONE_YEAR_S,
    secure,
  });
}
