import { stringifySetCookie } from "cookie";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { createSigner } from "./signer";

/**
 * Who is asking. Each browser gets a random id on its first visit, kept in a signed,
 * httpOnly, SameSite cookie; the Socket.IO handshake reads the same cookie. There is no
 * login for a single user: the signature only stops one browser from claiming another's id.
 */
export const IDENTITY_COOKIE = "dlg_uid";
const ID_PATTERN = /^[A-Za-z0-9_-]{16,64}$/;
const ONE_YEAR_S = 365 * 24 * 3600;

export interface Identity {
  sign(userId: string): string;
  /** The user id of a cookie value, or null when it is missing, malformed or forged. */
  verify(cookieValue: string | undefined): string | null;
  mint(): { userId: string; cookieValue: string };
}

export function createIdentity(secret: string): Identity {
  const signer = createSigner(secret);
  const sign = (userId: string) => `${userId}.${signer.sign(userId)}`;
  return {
    sign,
    verify(cookieValue) {
      if (!cookieValue) return null;
      const dot = cookieValue.lastIndexOf(".");
      if (dot <= 0) return null;
      const id = cookieValue.slice(0, dot);
      return ID_PATTERN.test(id) && signer.verify(id, cookieValue.slice(dot + 1)) ? id : null;
    },
    mint() {
      const userId = randomBytes(18).toString("base64url");
      return { userId, cookieValue: sign(userId) };
    },
  };
}

/**
 * The key a person's caps are counted under (sockets, command budget, running turns, the
 * shared pools' fairness). Behind APP_PASSWORD, identity cookies are free to mint once
 * logged in, so the login session is the person and every identity minted under it
 * shares its caps; otherwise the identity (or the account) is. The prefix keeps the two
 * kinds apart (`:` is in no identity or account id).
 */
export function personKey(who: { userId: string; authSession?: string }): string {
  return who.authSession ? `login:${who.authSession}` : who.userId;
}

/** The configured secret, else one generated once and kept under the data folder. */
export function loadOrCreateSecret(configured: string | undefined, dataDir: string): string {
  if (configured) return configured;
  const file = path.resolve(dataDir, "session-secret");
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  mkdirSync(path.dirname(file), { recursive: true });
  const secret = randomBytes(32).toString("base64url");
  writeFileSync(file, secret, { mode: 0o600 });
  return secret;
}

export function identityCookieHeader(cookieValue: string, secure: boolean): string {
  return stringifySetCookie(IDENTITY_COOKIE, cookieValue, { path: "/", httpOnly: true, sameSite: "lax", maxAge: ONE_YEAR_S, secure });
}
