import { stringifySetCookie, type Cookies } from "cookie";
import type { IncomingMessage, ServerResponse } from "node:http";
import { safeNextPath } from "@/lib/accounts/safe-next";
import { DEVICE_COOKIE, deviceCookieHeader, type KnownDevices } from "@/server/accounts/known-device";
import { AUTH_COOKIE, type PasswordGate } from "@/server/accounts/password-gate";
import { reserveGateLogin, type GateThrottles } from "@/server/accounts/sign-in-throttles";
import { toAppError } from "@/server/errors";
import { readBody } from "./body";
import { httpStatusOf } from "./error-status";
import { originAllowed } from "./origin";

/**
 * Everything the APP_PASSWORD gate does over HTTP: the login and logout routes, and the
 * check in front of every other request (pages redirect to /login, the API answers 401).
 */
export interface LoginDeps {
  gate: PasswordGate;
  throttle: GateThrottles;
  devices: KnownDevices;
  allowedOrigins: readonly string[];
  secureCookies: boolean;
  /** A login session ended: cut what it still has open (sockets). */
  onLogout(sessionId: string): void;
}

const MAX_LOGIN_BODY_BYTES = 10_000;

/** Paths reachable without logging in: the login page and what it loads. */
const PUBLIC_PATH =
  /^\/(login\/?|api\/login|api\/health|api\/auth\/state|_next\/static\/.*|theme-init\.js|icon\.svg|favicon\.ico|icon-(?:192|512)\.png|apple-touch-icon\.png|manifest\.webmanifest|sw\.js|sw-notifications\.js)$/;

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string | string[]> = {}): void {
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", ...headers });
  res.end(JSON.stringify(body));
}

function authCookie(value: string, maxAgeS: number, secure: boolean): string {
  return stringifySetCookie(AUTH_COOKIE, value, { path: "/", httpOnly: true, sameSite: "lax", maxAge: maxAgeS, secure });
}

/**
 * Returns true when the request was answered here (login/logout, or refused for lack of
 * a login); false when it may go on. Login sessions are in the database: one that does
 * not answer is a 503, not a logout.
 */
export async function gateRequest(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  cookies: Cookies,
  deps: LoginDeps,
): Promise<boolean> {
  try {
    return await gate(req, res, url, cookies, deps);
  } catch (error) {
    const known = toAppError(error);
    if (!known || res.headersSent) throw error;
    req.resume();
    json(res, httpStatusOf(known.code), { error: { code: known.code, message: known.message } });
    return true;
  }
}

async function gate(req: IncomingMessage, res: ServerResponse, url: URL, cookies: Cookies, deps: LoginDeps): Promise<boolean> {
  const method = req.method ?? "GET";
  if (url.pathname === "/api/login" && method === "POST") {
    await login(req, res, cookies, deps);
    return true;
  }
  if (url.pathname === "/api/logout" && method === "POST") {
    if (!originAllowed(req, deps.allowedOrigins)) {
      json(res, 401, { error: { code: "unauthorized", message: "Cross-site requests are not allowed." } });
      return true;
    }
    // Clearing the cookie is not enough: a copy of it must stop working too.
    const session = await deps.gate.verify(cookies[AUTH_COOKIE]);
    if (session) {
      await deps.gate.revoke(session);
      deps.onLogout(session);
    }
    json(res, 200, { ok: true }, { "set-cookie": authCookie("", 0, deps.secureCookies) });
    return true;
  }
  if (PUBLIC_PATH.test(url.pathname) || (await deps.gate.verify(cookies[AUTH_COOKIE]))) return false;
  if (url.pathname.startsWith("/api/")) {
    json(res, 401, { error: { code: "unauthorized", message: "Log in first." } });
  } else {
    res.writeHead(303, {
      location: `/login?next=${encodeURIComponent(safeNextPath(url.pathname + url.search))}`,
      "cache-control": "no-store",
    });
    res.end();
  }
  return true;
}

async function login(req: IncomingMessage, res: ServerResponse, cookies: Cookies, deps: LoginDeps): Promise<void> {
  if (!originAllowed(req, deps.allowedOrigins)) {
    json(res, 401, { error: { code: "unauthorized", message: "Cross-site requests are not allowed." } });
    return;
  }
  const device = deps.devices.verify(cookies[DEVICE_COOKIE]);
  // Reserved before the body is read: guesses sent together are counted together.
  const attempt = await reserveGateLogin(deps.throttle, device ? { device } : { address: req.socket.remoteAddress ?? "unknown" });
  if ("retryAfterMs" in attempt) {
    req.resume();
    const seconds = Math.ceil(attempt.retryAfterMs / 1000);
    json(
      res,
      429,
      { error: { code: "rate_limited", message: `Too many wrong passwords. Try again in ${seconds} s.` } },
      { "retry-after": String(seconds) },
    );
    return;
  }
  let password = "";
  try {
    const body = JSON.parse(await readBody(req, MAX_LOGIN_BODY_BYTES)) as { password?: unknown };
    if (typeof body.password === "string") password = body.password;
  } catch {
    await attempt.dropped();
    json(res, 400, { error: { code: "bad_request", message: 'Send JSON like {"password": "…"}.' } });
    return;
  }
  if (!deps.gate.checkPassword(password)) {
    // Counted before answering: the next guess, on any process, sees this one.
    await attempt.failed();
    json(res, 401, { error: { code: "unauthorized", message: "That password is not right." } });
    return;
  }
  await attempt.passed();
  const cookiesToSet = [authCookie(await deps.gate.issue(), Math.floor(deps.gate.ttlMs / 1000), deps.secureCookies)];
  if (!device) cookiesToSet.push(deviceCookieHeader(deps.devices.mint(), deps.secureCookies));
  json(res, 200, { ok: true }, { "set-cookie": cookiesToSet });
}
