import { stringifySetCookie, type Cookies } from "cookie";
import type { IncomingMessage, ServerResponse } from "node:http";
import { ACCOUNT_PAGES, ACCOUNT_ROUTES, type SsoFailureReason } from "@/lib/contracts/account";
import type { Logger } from "@/lib/log";
import {
  ATTEMPT_COOKIE,
  ATTEMPT_COOKIE_PATH,
  ATTEMPT_TTL_MS,
  OidcError,
  type OidcClient,
  type VerifiedIdentity,
} from "@/server/accounts/oidc";

/**
 * The two single sign-on routes. GET /api/auth/oidc/start sends the browser to the
 * provider with a fresh attempt cookie; GET /api/auth/oidc/callback finishes that attempt
 * and hands the verified identity to the accounts service. Every failure lands on the
 * sign-in page with a short reason code, and nothing is signed in.
 */
export interface OidcRouteDeps {
  /** Null when no provider is configured: the routes answer 404. */
  oidc: OidcClient | null;
  /** The accounts service's `signInWithSso`. */
  signIn(identity: VerifiedIdentity, meta: { userAgent: string; address: string }): Promise<{ cookieValue: string } | { refused: string }>;
  /** The Set-Cookie header of a new sign-in session (`dlg_session`) holding `cookieValue`. */
  sessionCookie(cookieValue: string): string;
  /**
   * Called after a successful sign-in with the request's cookies, so a sign-in session the
   * browser already had is revoked (session fixation). Optional: the accounts service may
   * do this itself.
   */
  endPreviousSession?(cookies: Cookies): Promise<void>;
  secureCookies: boolean;
  log?: Pick<Logger, "info" | "warn" | "error">;
}

const MAX_USER_AGENT_CHARS = 200;

function attemptCookie(value: string, maxAgeS: number, secure: boolean): string {
  // Lax, not Strict: the provider's redirect back is a cross-site top-level navigation,
  // which Lax still sends the cookie with (and Strict would not).
  return stringifySetCookie(ATTEMPT_COOKIE, value, { path: ATTEMPT_COOKIE_PATH, httpOnly: true, sameSite: "lax", maxAge: maxAgeS, secure });
}

function redirect(res: ServerResponse, location: string, cookies: string[]): void {
  res.writeHead(302, { location, "cache-control": "no-store", "set-cookie": cookies });
  res.end();
}

/** Where a failed attempt ends: the sign-in page, told why by a code only. */
export function failurePage(reason: SsoFailureReason): string {
  return `${ACCOUNT_PAGES.signIn}?error=sso&reason=${reason}`;
}

/**
 * Answers the SSO routes; returns false for any other request. Only GET: both are
 * top-level navigations, the callback from the provider and the start from a plain link.
 * The start must be a link, not a <form>: the CSP's `form-action 'self'` also covers the
 * redirects after a form submission, so Chromium would block the hop to the provider.
 */
export async function handleOidc(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  cookies: Cookies,
  deps: OidcRouteDeps,
): Promise<boolean> {
  const start = url.pathname === ACCOUNT_ROUTES.ssoStart;
  if (!start && url.pathname !== ACCOUNT_ROUTES.ssoCallback) return false;
  if (req.method !== "GET") {
    res.writeHead(405, { allow: "GET", "content-type": "application/json; charset=utf-8", "cache-control": "no-store" });
    res.end(JSON.stringify({ error: { code: "bad_request", message: "Use GET." } }));
    return true;
  }
  if (!deps.oidc) {
    res.writeHead(404, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" });
    res.end(JSON.stringify({ error: { code: "not_found", message: "Single sign-on is not configured." } }));
    return true;
  }
  if (start) await begin(res, url, deps.oidc, deps);
  else await callback(req, res, url, cookies, deps.oidc, deps);
  return true;
}

async function begin(res: ServerResponse, url: URL, oidc: OidcClient, deps: OidcRouteDeps): Promise<void> {
  try {
    const { location, attemptCookie: value } = await oidc.begin(url.searchParams.get("next"));
    redirect(res, location, [attemptCookie(value, ATTEMPT_TTL_MS / 1000, deps.secureCookies)]);
  } catch (error) {
    const reason = error instanceof OidcError ? error.reason : "error";
    deps.log?.warn("single sign-on could not start", { reason, error: error instanceof Error ? error.message : String(error) });
    redirect(res, failurePage(reason), []);
  }
}

async function callback(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  cookies: Cookies,
  oidc: OidcClient,
  deps: OidcRouteDeps,
): Promise<void> {
  // One attempt, one callback: the cookie goes whatever happens next.
  const clear = attemptCookie("", 0, deps.secureCookies);
  let outcome: Awaited<ReturnType<OidcClient["complete"]>>;
  try {
    outcome = await oidc.complete(url.searchParams, cookies[ATTEMPT_COOKIE]);
  } catch (error) {
    const reason = error instanceof OidcError ? error.reason : "error";
    deps.log?.warn("single sign-on refused a callback", { reason, error: error instanceof Error ? error.message : String(error) });
    redirect(res, failurePage(reason), [clear]);
    return;
  }
  const meta = {
    userAgent: (req.headers["user-agent"] ?? "").slice(0, MAX_USER_AGENT_CHARS),
    address: req.socket.remoteAddress ?? "unknown",
  };
  let result: Awaited<ReturnType<OidcRouteDeps["signIn"]>>;
  try {
    result = await deps.signIn(outcome.identity, meta);
    // Only a sign-in that happened replaces the old session; a refusal leaves it be.
    if ("cookieValue" in result) await deps.endPreviousSession?.(cookies);
  } catch (error) {
    deps.log?.error("single sign-on: the accounts service failed", { error: error instanceof Error ? error.message : String(error) });
    redirect(res, failurePage("error"), [clear]);
    return;
  }
  if ("refused" in result) {
    deps.log?.info("single sign-on refused by the accounts service", { issuer: outcome.identity.issuer, reason: result.refused });
    redirect(res, failurePage("refused"), [clear]);
    return;
  }
  redirect(res, outcome.next, [clear, deps.sessionCookie(result.cookieValue)]);
}
