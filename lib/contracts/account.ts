import { z } from "zod";
import type { QuotaView } from "./quota";

/**
 * The accounts HTTP API, shared by the server (which validates every body with these
 * schemas) and the browser (which reads every answer with these types). Accounts are
 * off in the default `single` mode: a browser is a person, as before.
 *
 * Every route answers JSON; errors use the same `{ error: { code, message } }` body as
 * the rest of the API (codes from ack.ts). Every POST checks the Origin (CSRF).
 */

/** How people get in, set by the operator (AUTH_MODE). */
export const AUTH_MODES = ["single", "open", "invite", "sso"] as const;
export type AuthMode = (typeof AUTH_MODES)[number];

export type AccountRole = "admin" | "member";

/** The signed-in account, as its owner sees it. */
export interface AccountView {
  id: string;
  email: string;
  displayName: string;
  role: AccountRole;
  /** Whether a password is set (an SSO-only account has none and cannot change it). */
  hasPassword: boolean;
  createdAt: string;
}

/** GET /api/auth/state: what the sign-in page and the header need to know. */
export interface AuthState {
  mode: AuthMode;
  /** Null when nobody is signed in (or in `single` mode). */
  account: AccountView | null;
  /** Whether a new person may sign up with a password right now (open mode, or the very first account). */
  signUpOpen: boolean;
  /** The SSO button, when an OpenID Connect provider is configured. */
  sso: { label: string } | null;
  /**
   * Chats this browser made before accounts (its old cookie identity) that the signed-in
   * account may claim; 0 when there are none or they were claimed or declined.
   */
  claimable: number;
}

const email = z
  .string()
  .trim()
  .toLowerCase()
  .max(254, "An email address has at most 254 characters.")
  .email("Enter an email address like name@example.com.");

/**
 * Current guidance (NIST SP 800-63B): length, not composition rules. At least 8
 * characters, at most 256 so hashing stays bounded; any characters, spaces included.
 */
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 256;
const password = z
  .string()
  .min(PASSWORD_MIN, `A password needs at least ${PASSWORD_MIN} characters.`)
  .max(PASSWORD_MAX, `A password has at most ${PASSWORD_MAX} characters.`);

/** POST /api/auth/sign-in. Any failure is the same answer, whatever was wrong. */
export const signInBody = z.object({ email, password: z.string().max(PASSWORD_MAX) });
export type SignInBody = z.infer<typeof signInBody>;

/** POST /api/auth/sign-up (open mode, an invitation, or the first account). */
export const signUpBody = z.object({
  email,
  password,
  displayName: z.string().trim().max(80).optional(),
  /** The token of an invitation link (invite mode). */
  invite: z.string().max(200).optional(),
});
export type SignUpBody = z.infer<typeof signUpBody>;

/** POST /api/auth/reset: a one-time link an admin issued. Ends every session of the account. */
export const resetBody = z.object({ token: z.string().min(1).max(200), password });
export type ResetBody = z.infer<typeof resetBody>;

/** POST /api/account/password. Ends the account's other sessions. */
export const changePasswordBody = z.object({ current: z.string().max(PASSWORD_MAX), next: password });
export type ChangePasswordBody = z.infer<typeof changePasswordBody>;

/** POST /api/account/claim: attach (or decline) this browser's chats from before accounts. */
export const claimBody = z.object({ accept: z.boolean() });
export type ClaimBody = z.infer<typeof claimBody>;
export interface ClaimResult {
  claimed: number;
}

/** GET /api/account/sessions: the account's signed-in browsers. */
export interface SignInSessionView {
  /** A public id (never the cookie's secret). POST /api/account/sessions/:id/revoke ends it. */
  id: string;
  createdAt: string;
  lastSeenAt: string;
  userAgent: string;
  /** How it signed in. */
  method: "password" | "sso";
  current: boolean;
}

/** Usage of one account, for the admin. */
export interface AccountUsage {
  chats: number;
  turns: number;
  tokens: number;
  costUsd: number;
  lastActiveAt: string | null;
}

/** GET /api/admin/accounts. */
export interface AdminAccountView extends AccountView {
  disabled: boolean;
  usage: AccountUsage;
  /** Its quota and this day's and month's spend against it; absent where the server counts no quotas. */
  quota?: QuotaView;
}

/** POST /api/admin/accounts/:id/disable ({disabled}); POST /api/admin/accounts/:id/delete removes it and all its chats. */
export const disableBody = z.object({ disabled: z.boolean() });
export type DisableBody = z.infer<typeof disableBody>;

/** POST /api/admin/invites: a one-time invitation link. GET lists them; POST /api/admin/invites/:id/revoke ends one. */
export const createInviteBody = z.object({
  expiresInHours: z
    .number()
    .int("Give a whole number of hours.")
    .min(1, "An invitation lasts at least 1 hour.")
    .max(24 * 30, "An invitation lasts at most 30 days (720 hours).")
    .default(72),
});
export type CreateInviteBody = z.input<typeof createInviteBody>;

/** A one-time link (invitation or password reset); `url` is only in the answer that creates it. */
export interface OneTimeLink {
  id: string;
  url?: string;
  createdAt: string;
  expiresAt: string;
  usedAt: string | null;
}

/** POST /api/admin/accounts/:id/reset-link: a one-time password-reset link to hand over. */
export type ResetLink = OneTimeLink;

/** Where each part lives, so the server's router and the browser's fetches agree. */
export const ACCOUNT_ROUTES = {
  state: "/api/auth/state",
  signIn: "/api/auth/sign-in",
  signUp: "/api/auth/sign-up",
  signOut: "/api/auth/sign-out",
  signOutEverywhere: "/api/auth/sign-out-everywhere",
  reset: "/api/auth/reset",
  ssoStart: "/api/auth/oidc/start",
  ssoCallback: "/api/auth/oidc/callback",
  sessions: "/api/account/sessions",
  revokeSession: (id: string) => `/api/account/sessions/${encodeURIComponent(id)}/revoke`,
  password: "/api/account/password",
  claim: "/api/account/claim",
  /** GET: the signed-in account's own QuotaView (null where the server counts no quotas). */
  quota: "/api/account/quota",
  adminAccounts: "/api/admin/accounts",
  adminDisable: (id: string) => `/api/admin/accounts/${encodeURIComponent(id)}/disable`,
  adminDelete: (id: string) => `/api/admin/accounts/${encodeURIComponent(id)}/delete`,
  adminResetLink: (id: string) => `/api/admin/accounts/${encodeURIComponent(id)}/reset-link`,
  /** POST a SetQuotaBody. */
  adminQuota: (id: string) => `/api/admin/accounts/${encodeURIComponent(id)}/quota`,
  adminInvites: "/api/admin/invites",
  adminRevokeInvite: (id: string) => `/api/admin/invites/${encodeURIComponent(id)}/revoke`,
} as const;

/** Pages. `/login` serves both the APP_PASSWORD gate (single mode) and account sign-in. */
export const ACCOUNT_PAGES = {
  signIn: "/login",
  signUp: "/signup",
  invite: (token: string) => `/signup?invite=${encodeURIComponent(token)}`,
  reset: (token: string) => `/reset?token=${encodeURIComponent(token)}`,
  account: "/account",
  admin: "/admin",
} as const;

/**
 * Why a single sign-on attempt failed: GET /api/auth/oidc/callback sends the browser to
 * `/login?error=sso&reason=<reason>`, and the page shows the message. Only these codes
 * travel in the URL, never a provider's or the server's own words, so a crafted link
 * cannot make the page say anything else.
 */
export const SSO_FAILURE_REASONS = ["unavailable", "expired", "state", "nonce", "token", "code", "denied", "refused", "error"] as const;
export type SsoFailureReason = (typeof SSO_FAILURE_REASONS)[number];

const SSO_TRY_AGAIN = "Single sign-on could not be completed. Start again from this page.";
export const SSO_FAILURE_MESSAGES: Record<SsoFailureReason, string> = {
  unavailable: "The sign-in provider cannot be reached right now. Try again in a minute.",
  expired: "That sign-in took too long, or was started in another browser. Start again from this page.",
  state: SSO_TRY_AGAIN,
  nonce: SSO_TRY_AGAIN,
  token: SSO_TRY_AGAIN,
  code: SSO_TRY_AGAIN,
  denied: "The sign-in was cancelled at the provider.",
  refused: "That account cannot sign in here. Ask an admin for access.",
  error: SSO_TRY_AGAIN,
};

/** The message for `/login?error=sso&reason=…`; an unknown reason gets the general one. */
export function ssoFailureMessage(reason: string | null): string {
  return (SSO_FAILURE_REASONS as readonly string[]).includes(reason ?? "")
    ? SSO_FAILURE_MESSAGES[reason as SsoFailureReason]
    : SSO_TRY_AGAIN;
}
