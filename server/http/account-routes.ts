import { stringifySetCookie, type Cookies } from "cookie";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { z } from "zod";
import {
  ACCOUNT_ROUTES,
  AppError,
  changePasswordBody,
  claimBody,
  createInviteBody,
  disableBody,
  resetBody,
  setQuotaBody,
  signInBody,
  signUpBody,
} from "@/lib/contracts";
import type { Logger } from "@/lib/log";
import {
  LINK_INVALID,
  ThrottledError,
  SESSION_TTL_MS,
  type AccountService,
  type Authenticated,
  type RequestMeta,
} from "@/server/accounts/account-service";
import type { Reservation } from "@/server/accounts/login-throttle";
import { reserveSignIn, type AccountThrottles } from "@/server/accounts/sign-in-throttles";
import { toAppError } from "@/server/errors";
import { readBody } from "./body";
import { httpStatusOf } from "./error-status";
import { originAllowed } from "./origin";
import { errorAnswer } from "./error-answer";

/**
 * The accounts' HTTP routes (ACCOUNT_ROUTES, but the two OIDC ones) and the gate in front
 * of everything else in the account modes: pages redirect to /login, the API answers 401.
 * Bodies are capped, parsed and validated here; the account service does the rest.
 */
export const SESSION_COOKIE = "dlg_session";

export interface AccountHttpDeps {
  accounts: AccountService;
  /** Password guesses, new accounts and resets (shared by every process when scaled out). */
  throttles: AccountThrottles;
  allowedOrigins: readonly string[];
  secureCookies: boolean;
  /** PUBLIC_URL: where links point; else the origin the request came in on. */
  publicUrl?: string;
  log?: Pick<Logger, "error">;
}

const MAX_BODY_BYTES = 10_000;

/**
 * Reachable without signing in: the sign-in pages, what they load, the auth API and the health check,
 * and the service worker's scripts, which a browser checks for updates whoever is signed in.
 */
const PUBLIC_PATH =
  /^\/(login|signup|reset)\/?$|^\/(api\/auth\/.*|api\/health|_next\/static\/.*|theme-init\.js|icon\.svg|favicon\.ico|icon-(?:192|512)\.png|apple-touch-icon\.png|manifest\.webmanifest|sw\.js|sw-notifications\.js)$/;

/** Static files: served without looking up a sign-in (no database read per asset). */
const STATIC_PATH =
  /^\/(_next\/static\/.*|theme-init\.js|icon\.svg|favicon\.ico|icon-(?:192|512)\.png|apple-touch-icon\.png|manifest\.webmanifest|sw\.js|sw-notifications\.js)$/;
export function isStaticPath(pathname: string): boolean {
  return STATIC_PATH.test(pathname);
}

export function isPublicPath(pathname: string): boolean {
  return PUBLIC_PATH.test(pathname);
}

export function sessionCookieHeader(token: string, secure: boolean): string {
  return stringifySetCookie(SESSION_COOKIE, token, {
    path: "/",
    httpOnly: true,
    sameSite: "lax",
    maxAge: Math.floor(SESSION_TTL_MS / 1000),
    secure,
  });
}

function clearedSessionCookie(secure: boolean): string {
  return stringifySetCookie(SESSION_COOKIE, "", { path: "/", httpOnly: true, sameSite: "lax", maxAge: 0, secure });
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string | string[]> = {}): void {
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", ...headers });
  res.end(JSON.stringify(body));
}

/** Not signed in: a page goes to the sign-in page (and back after), the API answers 401. */
export function refuseUnauthenticated(res: ServerResponse, url: URL): void {
  if (url.pathname.startsWith("/api/")) {
    json(res, 401, { error: { code: "unauthorized", message: "Sign in first." } });
    return;
  }
  const next = url.pathname + url.search;
  res.writeHead(303, {
    location: `/login?next=${encodeURIComponent(next.startsWith("/") && !next.startsWith("//") ? next : "/")}`,
    "cache-control": "no-store",
  });
  res.end();
}

/**
 * In the account modes, in front of the API and the pages: answers the account routes,
 * sends the unsigned to /login (pages) or a 401 (API), and says who is asking otherwise
 * (null on a path open to all). A database that does not answer is a 503, not a sign-out.
 */
export async function gateAccountRequest(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  cookies: Cookies,
  cookieIdentity: string | null,
  deps: AccountHttpDeps,
): Promise<{ answered: true } | { answered: false; accountId: string | null }> {
  // Static files need no sign-in, and no database read per asset.
  if (isStaticPath(url.pathname)) return { answered: false, accountId: null };
  let auth: Authenticated | null;
  try {
    auth = await deps.accounts.authenticate(cookies[SESSION_COOKIE]);
  } catch (error) {
    const known = toAppError(error);
    if (!known) throw error;
    req.resume();
    json(res, httpStatusOf(known.code), { error: { code: known.code, message: known.message } });
    return { answered: true };
  }
  if (isAccountRoute(url.pathname)) {
    await handleAccountRoute(req, res, url, cookies, auth, cookieIdentity, deps);
    return { answered: true };
  }
  if (!auth) {
    if (isPublicPath(url.pathname)) return { answered: false, accountId: null };
    req.resume();
    refuseUnauthenticated(res, url);
    return { answered: true };
  }
  // The expiry slid forward: the browser's cookie follows.
  if (auth.slid) res.setHeader("set-cookie", sessionCookieHeader(cookies[SESSION_COOKIE]!, deps.secureCookies));
  return { answered: false, accountId: auth.account._id };
}

/** What a route answers: a body, and cookies to set. */
interface Answer {
  body: unknown;
  cookies?: string[];
}

const SESSION_ID = /^\/api\/account\/sessions\/([A-Za-z0-9_-]{1,64})\/revoke$/;
const ADMIN_ACCOUNT = /^\/api\/admin\/accounts\/([A-Za-z0-9_-]{1,64})\/(disable|delete|reset-link|quota)$/;
const INVITE_ID = /^\/api\/admin\/invites\/([A-Za-z0-9_-]{1,64})\/revoke$/;

/** Whether this path is one of the routes below (the OIDC ones are not). */
export function isAccountRoute(pathname: string): boolean {
  return (
    (pathname.startsWith("/api/auth/") && !pathname.startsWith("/api/auth/oidc/")) ||
    pathname.startsWith("/api/account/") ||
    pathname.startsWith("/api/admin/")
  );
}

/**
 * Answers an account route. `auth` is the signed-in session (null when none), `cookieIdentity`
 * the browser's old `dlg_uid` identity when it carries a valid one (for claiming).
 */
export async function handleAccountRoute(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  cookies: Cookies,
  auth: Authenticated | null,
  cookieIdentity: string | null,
  deps: AccountHttpDeps,
): Promise<void> {
  const method = req.method ?? "GET";
  try {
    if (method !== "GET" && method !== "HEAD" && !originAllowed(req, deps.allowedOrigins)) {
      req.resume();
      throw new AppError("unauthorized", "Cross-site requests are not allowed.");
    }
    const answer = await route(req, method, url, cookies, auth, cookieIdentity, deps);
    if (!answer) {
      req.resume();
      throw new AppError("not_found", "No such API route.");
    }
    json(res, 200, answer.body, answer.cookies ? { "set-cookie": answer.cookies } : {});
  } catch (error) {
    const { status, body } = errorAnswer(error, "account", url.pathname, deps.log);
    const headers: Record<string, string> = error instanceof ThrottledError ? { "retry-after": String(error.retryAfterS) } : {};
    json(res, status, body, headers);
  }
}

type Outcome = "failed" | "passed" | "dropped";

/**
 * Runs `act` under a reservation: refused, it throws the wait (429 with Retry-After);
 * admitted, the attempt is settled as `outcome` says before the answer goes out, so the
 * next attempt, on any process, counts this one.
 */
async function settled<T>(
  reservation: Promise<Reservation>,
  act: () => Promise<T>,
  outcome: (result: T) => Outcome,
  failure: (error: unknown) => Outcome,
): Promise<T> {
  const attempt = await reservation;
  if ("retryAfterMs" in attempt) throw new ThrottledError(Math.ceil(attempt.retryAfterMs / 1000));
  let result: T;
  try {
    result = await act();
  } catch (error) {
    await attempt[failure(error)]();
    throw error;
  }
  await attempt[outcome(result)]();
  return result;
}

/** A password check: a wrong password (the service's `unauthorized`) is a failure; other errors never checked one. */
function guessing<T>(reservation: Promise<Reservation>, act: () => Promise<T>): Promise<T> {
  return settled(
    reservation,
    act,
    () => "passed",
    (error) => (error instanceof AppError && error.code === "unauthorized" ? "failed" : "dropped"),
  );
}

async function route(
  req: IncomingMessage,
  method: string,
  url: URL,
  cookies: Cookies,
  auth: Authenticated | null,
  cookieIdentity: string | null,
  deps: AccountHttpDeps,
): Promise<Answer | undefined> {
  const { accounts, secureCookies, throttles } = deps;
  const path = url.pathname;
  const meta: RequestMeta = { userAgent: String(req.headers["user-agent"] ?? ""), address: req.socket.remoteAddress ?? "unknown" };
  const planted = cookies[SESSION_COOKIE];
  /** A sign-in always gets a fresh token; whatever token the browser held before is revoked (session fixation). */
  const signedIn = async (cookieValue: string): Promise<Answer> => {
    if (planted) await accounts.revokeToken(planted);
    return { body: { ok: true }, cookies: [sessionCookieHeader(cookieValue, secureCookies)] };
  };

  if (method === "GET" && path === ACCOUNT_ROUTES.state) {
    const state = await accounts.state(auth, cookieIdentity);
    return { body: state, cookies: auth?.slid && planted ? [sessionCookieHeader(planted, secureCookies)] : undefined };
  }
  if (method !== "POST" && method !== "GET") return undefined;

  if (method === "POST") {
    if (path === ACCOUNT_ROUTES.signIn) {
      const body = await parse(req, signInBody);
      const { cookieValue } = await guessing(reserveSignIn(throttles, meta.address, body.email), () => accounts.signIn(body, meta));
      return signedIn(cookieValue);
    }
    if (path === ACCOUNT_ROUTES.signUp) {
      const body = await parse(req, signUpBody);
      // A taken email is a sign-in attempt; only accounts made count against the address's budget of new ones.
      const { cookieValue } = await settled(
        throttles.creation.reserve(`address:${meta.address}`),
        () => guessing(reserveSignIn(throttles, meta.address, body.email), () => accounts.signUp(body, meta)),
        (result) => (result.created ? "failed" : "dropped"),
        () => "dropped",
      );
      return signedIn(cookieValue);
    }
    if (path === ACCOUNT_ROUTES.reset) {
      const body = await parse(req, resetBody);
      const { cookieValue } = await settled(
        throttles.creation.reserve(`reset:${meta.address}`),
        () => accounts.resetPassword(body, meta),
        () => "passed",
        (error) => (error instanceof AppError && error.message === LINK_INVALID ? "failed" : "dropped"),
      );
      return signedIn(cookieValue);
    }
    if (path === ACCOUNT_ROUTES.signOut) {
      req.resume();
      await accounts.signOut(planted);
      return { body: { ok: true }, cookies: [clearedSessionCookie(secureCookies)] };
    }
  }

  // Everything below needs a signed-in account; the sign-in routes above take no other method.
  if (!isAccountRoute(path) || (path.startsWith("/api/auth/") && path !== ACCOUNT_ROUTES.signOutEverywhere)) return undefined;
  if (!auth) {
    req.resume();
    throw new AppError("unauthorized", "Sign in first.");
  }
  // A member learns nothing about admin routes, not even whether a body would be valid.
  if (path.startsWith("/api/admin/")) accounts.requireAdmin(auth);
  const origin = deps.publicUrl ? new URL(deps.publicUrl).origin : `http://${req.headers.host ?? "localhost"}`;

  if (method === "GET") {
    req.resume();
    if (path === ACCOUNT_ROUTES.sessions) return { body: await accounts.listSessions(auth) };
    if (path === ACCOUNT_ROUTES.quota) return { body: await accounts.ownQuota(auth) };
    if (path === ACCOUNT_ROUTES.adminAccounts) return { body: await accounts.listAccounts(auth) };
    if (path === ACCOUNT_ROUTES.adminInvites) return { body: await accounts.listInvites(auth) };
    return undefined;
  }

  if (path === ACCOUNT_ROUTES.signOutEverywhere) {
    req.resume();
    await accounts.endSessions(auth.account._id);
    return { body: { ok: true }, cookies: [clearedSessionCookie(secureCookies)] };
  }
  if (path === ACCOUNT_ROUTES.password) {
    const body = await parse(req, changePasswordBody);
    await guessing(reserveSignIn(throttles, meta.address, auth.account.email), () => accounts.changePassword(auth, body, meta));
    return { body: { ok: true } };
  }
  if (path === ACCOUNT_ROUTES.claim) {
    const body = await parse(req, claimBody);
    return { body: await accounts.claim(auth, cookieIdentity, body.accept) };
  }
  if (path === ACCOUNT_ROUTES.adminInvites) {
    const body = await parse(req, createInviteBody, true);
    return { body: await accounts.createInvite(auth, body.expiresInHours, origin) };
  }
  let match = SESSION_ID.exec(path);
  if (match) {
    req.resume();
    await accounts.revokeSession(auth, match[1]!);
    return { body: { ok: true } };
  }
  match = INVITE_ID.exec(path);
  if (match) {
    req.resume();
    await accounts.revokeInvite(auth, match[1]!);
    return { body: { ok: true } };
  }
  match = ADMIN_ACCOUNT.exec(path);
  if (match) {
    const [, id, action] = match as unknown as [string, string, string];
    if (action === "disable") {
      await accounts.setDisabled(auth, id, (await parse(req, disableBody)).disabled);
      return { body: { ok: true } };
    }
    if (action === "quota") return { body: await accounts.setQuota(auth, id, await parse(req, setQuotaBody)) };
    req.resume();
    if (action === "delete") {
      await accounts.deleteAccount(auth, id);
      return { body: { ok: true } };
    }
    return { body: await accounts.resetLink(auth, id, origin) };
  }
  return undefined;
}

/** Reads a capped JSON body and validates it; an empty body counts as `{}` when `emptyOk`. */
async function parse<S extends z.ZodType>(req: IncomingMessage, schema: S, emptyOk = false): Promise<z.output<S>> {
  const text = await readBody(req, MAX_BODY_BYTES);
  let value: unknown;
  if (emptyOk && text.trim() === "") value = {};
  else {
    try {
      value = JSON.parse(text);
    } catch {
      throw new AppError("bad_request", "The request body is not valid JSON.");
    }
  }
  const result = schema.safeParse(value);
  if (!result.success) {
    const issues = result.error.issues.map((i) => ({ path: i.path.map(String).join("."), message: i.message }));
    throw new AppError("bad_request", issues[0]?.message ?? "The request body is not valid.", issues);
  }
  return result.data;
}
