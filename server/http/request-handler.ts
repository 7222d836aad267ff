import { parseCookie, stringifyCookie, type Cookies } from "cookie";
import type { IncomingMessage, ServerResponse } from "node:http";
import { ACCOUNT_ROUTES } from "@/lib/contracts";
import type { Logger } from "@/lib/log";
import { IDENTITY_COOKIE, identityCookieHeader, type Identity } from "@/server/accounts/identity";
import { AUTH_COOKIE } from "@/server/accounts/password-gate";
import type { SessionService } from "@/server/sessions/session-service";
import { handleAttachmentApi } from "@/server/attachments/attachment-routes";
import { handleAgentApi } from "@/server/agents/agent-routes";
import { handleUsageApi } from "@/server/usage/usage-routes";
import { handleApiTokenApi } from "@/server/api-tokens/api-token-routes";
import { handleNotificationApi } from "@/server/notifications/notification-routes";
import { handleShareOwnerApi, handleShareViewer } from "@/server/share/share-routes";
import { gateAccountRequest, type AccountHttpDeps } from "./account-routes";
import { handleApi } from "./api";
import { contentSecurityPolicy, hardenResponse, newNonce, withNonce } from "./headers";
import { hostAllowed, refuseHost } from "./hosts";
import type { HttpRoutes } from "./http-routes";
import type { HttpSettings } from "./http-settings";
import { gateRequest, type LoginDeps } from "./login";
import { handleOidc } from "./oidc-routes";
import { isHealthProbe, serveHealthProbe, type HealthDeps } from "./health-routes";
import { METRICS_PATH, serveMetrics, type MetricsRouteDeps } from "@/server/metrics/metrics-route";
import { admitPageViewer, refusePageViewer, type PageViewer } from "./page-viewer";

type PageHandler = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

export interface RequestHandlerDeps {
  settings: Pick<HttpSettings, "allowedHosts" | "dev" | "secureCookies">;
  routes: HttpRoutes;
  identity: Identity;
  /** The APP_PASSWORD login, when there is one (single mode only). */
  login?: LoginDeps;
  /** A page rendered for a person reads their chats through the same door the socket uses. */
  sessions: Pick<SessionService, "join">;
  /** Next's request handler; without it non-API paths answer 404. */
  pageHandler?: PageHandler;
  log?: Pick<Logger, "error">;
  /** The orchestrator's probes (`/api/health/live`, `/api/health/ready`). */
  health?: HealthDeps;
  /** `/metrics`, when the app keeps metrics. */
  metrics?: MetricsRouteDeps;
}

/**
 * Every HTTP request, in the order the gates stand: the response's security headers and
 * the Host check first, then share links (a public one needs no sign-in), then the sign-in
 * of the mode (accounts, or the browser's identity behind an optional APP_PASSWORD), then
 * the API, then Next's page told who the page is for.
 */
export function createRequestHandler(deps: RequestHandlerDeps): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    // A nonce per response (see headers.ts); the page handler finds it on the request.
    const csp = contentSecurityPolicy(deps.settings.dev, newNonce());
    hardenResponse(res, csp);
    withNonce(req, csp);
    const allowedHost = hostAllowed(req.headers.host, deps.settings.allowedHosts);
    const pathname = pathOf(req.url);
    // Before the Host check: an orchestrator's probe names the pod's or container's address,
    // which no ALLOWED_HOSTS lists, and a probe's answer (up or down) tells a rebound page nothing.
    if (deps.health && isHealthProbe(pathname)) {
      answer(serveHealthProbe(req, res, pathname, deps.health), res, deps);
      return;
    }
    // A bearer token needs no Host check; a tokenless loopback request does (metrics-access.ts).
    if (deps.metrics && pathname === METRICS_PATH) {
      answer(serveMetrics(req, res, deps.metrics, allowedHost), res, deps);
      return;
    }
    // Before anything else, cookies included: a rebound name must not even get an identity.
    if (!allowedHost) {
      req.resume();
      refuseHost(res);
      return;
    }
    answer(route(req, res, deps), res, deps);
  };
}

function answer(handled: Promise<void>, res: ServerResponse, deps: RequestHandlerDeps): void {
  void handled.catch((error: unknown) => {
    deps.log?.error("request failed", { error: String(error) });
    if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
    res.end("Internal error");
  });
}

/** The request's path, without its query. */
function pathOf(url: string | undefined): string {
  const end = url?.search(/[?#]/) ?? -1;
  return (end === -1 ? url : url!.slice(0, end)) ?? "/";
}

async function route(req: IncomingMessage, res: ServerResponse, deps: RequestHandlerDeps): Promise<void> {
  const cookies = parseCookie(req.headers.cookie ?? "");
  const url = new URL(req.url ?? "/", "http://local");
  const { share, account, a2a } = deps.routes;
  // Another agent signs in with its bearer token, not a cookie: before the sign-in gates.
  if (a2a && (await a2a(req, res, url.pathname))) return;
  // Share viewers come before the sign-in gates: a public link needs no sign-in (share-routes.ts).
  if (share) {
    const shared = await handleShareViewer(req, res, url, share);
    if (shared === "answered") return;
    if (shared === "page") {
      // The share page renders no chat of the requester's own: a page-viewer token a client made up goes.
      refusePageViewer(req);
      await servePage(req, res, deps.pageHandler);
      return;
    }
  }
  if (account) await routeAccountMode(req, res, url, cookies, account, deps);
  else await routeSingleMode(req, res, url, cookies, deps);
}

/** Account modes: the signed-in account is the person; an old `dlg_uid` is only read (for claiming). */
async function routeAccountMode(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  cookies: Cookies,
  account: AccountHttpDeps,
  deps: RequestHandlerDeps,
): Promise<void> {
  const { oidc, share, api, attachments, agents, usage, tokens, signIn, notifications } = deps.routes;
  if (oidc && (await handleOidc(req, res, url, cookies, oidc))) return;
  const gate = await gateAccountRequest(req, res, url, cookies, deps.identity.verify(cookies[IDENTITY_COOKIE]), account);
  if (gate.answered) return;
  // No account here means a path open to all (the health check, the sign-in pages, static files).
  if (share && (await handleShareOwnerApi(req, res, url, gate.accountId ?? "", share))) return;
  if (attachments && (await handleAttachmentApi(req, res, url, gate.accountId ?? "", attachments))) return;
  if (agents && gate.accountId && (await handleAgentApi(req, res, url, gate.accountId, agents))) return;
  if (usage && gate.accountId && (await handleUsageApi(req, res, url, gate.accountId, usage))) return;
  if (tokens && gate.accountId && (await handleApiTokenApi(req, res, url, gate.accountId, tokens))) return;
  if (signIn && gate.accountId && (await signIn(req, res, url, gate.accountId))) return;
  if (notifications && gate.accountId && (await handleNotificationApi(req, res, url, gate.accountId, notifications))) return;
  if (await handleApi(req, res, gate.accountId ?? "", api)) return;
  // The page sees the account the socket handshake would accept, or no one.
  if (gate.accountId) admitPageViewer(req, res, pageViewerOf(deps.sessions, gate.accountId));
  else refusePageViewer(req);
  await servePage(req, res, deps.pageHandler);
}

/** Single mode: a browser is a person through its identity cookie, minted on its first request. */
async function routeSingleMode(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  cookies: Cookies,
  deps: RequestHandlerDeps,
): Promise<void> {
  const { identity, login, pageHandler } = deps;
  const { share, api, attachments, agents, usage, tokens, signIn, notifications } = deps.routes;
  if (url.pathname === ACCOUNT_ROUTES.state && req.method === "GET") {
    // Single mode answers the same question: no accounts here.
    res.writeHead(200, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" });
    res.end(JSON.stringify({ mode: "single", account: null, signUpOpen: false, sso: null, claimable: 0 }));
    return;
  }
  if (login && (await gateRequest(req, res, url, cookies, login))) return;
  let userId = identity.verify(cookies[IDENTITY_COOKIE]);
  if (!userId) {
    const minted = identity.mint();
    userId = minted.userId;
    res.setHeader("set-cookie", identityCookieHeader(minted.cookieValue, deps.settings.secureCookies));
  }
  if (share && (await handleShareOwnerApi(req, res, url, userId, share))) return;
  if (attachments && (await handleAttachmentApi(req, res, url, userId, attachments))) return;
  if (agents && (await handleAgentApi(req, res, url, userId, agents))) return;
  if (usage && (await handleUsageApi(req, res, url, userId, usage))) return;
  if (tokens && (await handleApiTokenApi(req, res, url, userId, tokens))) return;
  if (signIn && (await signIn(req, res, url, userId))) return;
  if (notifications && (await handleNotificationApi(req, res, url, userId, notifications))) return;
  if (await handleApi(req, res, userId, api)) return;
  if (!pageHandler) {
    notFound(res);
    return;
  }
  // Next reads the identity from the request like the API does; pass the new one on.
  if (!cookies[IDENTITY_COOKIE]) {
    const minted = stringifyCookie({ [IDENTITY_COOKIE]: identity.sign(userId) });
    req.headers.cookie = req.headers.cookie ? `${req.headers.cookie}; ${minted}` : minted;
  }
  // As the socket handshake: with APP_PASSWORD, only a logged-in browser is anyone
  // (the login page itself is served without one).
  if (!login || (await login.gate.verify(cookies[AUTH_COOKIE]))) admitPageViewer(req, res, pageViewerOf(deps.sessions, userId));
  else refusePageViewer(req);
  await pageHandler(req, res);
}

function pageViewerOf(sessions: Pick<SessionService, "join">, userId: string): PageViewer {
  return { join: (sessionId) => sessions.join(userId, sessionId, undefined) };
}

async function servePage(req: IncomingMessage, res: ServerResponse, pageHandler: PageHandler | undefined): Promise<void> {
  if (pageHandler) await pageHandler(req, res);
  else notFound(res);
}

function notFound(res: ServerResponse): void {
  res.writeHead(404, { "content-type": "text/plain" }).end("Not found");
}
