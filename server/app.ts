import { parseCookie, stringifyCookie } from "cookie";
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { Server } from "socket.io";
import {
  ACCOUNT_ROUTES,
  HANDSHAKE_SIGNED_OUT,
  SESSION_PAGE_SIZE,
  type AppInfo,
  type AuthMode,
  type SessionEvent,
  type ShareViewer,
} from "@/lib/contracts";
import { AccountService, type AccountServiceDeps } from "@/server/accounts/account-service";
import { gateAccountRequest, SESSION_COOKIE, sessionCookieHeader } from "@/server/http/account-routes";
import type { OidcClient } from "@/server/accounts/oidc";
import { handleOidc, type OidcRouteDeps } from "@/server/http/oidc-routes";
import { createIdentity, IDENTITY_COOKIE, identityCookieHeader } from "@/server/accounts/identity";
import { createKnownDevices } from "@/server/accounts/known-device";
import { createLoginThrottle } from "@/server/accounts/login-throttle";
import { AUTH_COOKIE, createPasswordGate } from "@/server/accounts/password-gate";
import { handleApi, type ApiDeps } from "@/server/http/api";
import { admitPageViewer, refusePageViewer, type PageViewer } from "@/server/http/page-viewer";
import { contentSecurityPolicy, hardenResponse, newNonce, withNonce } from "@/server/http/headers";
import { hostAllowed, hostRules, refuseHost, type HostSettings } from "@/server/http/hosts";
import { gateRequest, type LoginDeps } from "@/server/http/login";
import { originAllowed, parseAllowedOrigins } from "@/server/http/origin";
import { registerHandlers } from "@/server/realtime/handlers";
import type { RateLimit } from "@/server/realtime/rate-limit";
import { sessionRoom, userRoom, type AppServer } from "@/server/realtime/types";
import type { ChatStore } from "@/server/data/store";
import { env } from "@/lib/env";
import type { Logger } from "@/lib/log";
import { SessionRegistry } from "@/server/sessions/registry";
import { SessionService, type PersonLimits } from "@/server/sessions/session-service";
import type { TurnRunner } from "@/server/sessions/turn-runner";
import type { Models } from "@/models";
import { handleShareOwnerApi, handleShareViewer, type ShareHttpDeps } from "@/server/share/share-routes";
import { ShareService } from "@/server/share/share-service";
import { cutShareViewers, endShareViewers, registerShareNamespace, type ShareNamespace } from "@/server/share/share-socket";
import type { Cluster } from "@/server/cluster/cluster";

/**
 * One HTTP server for everything: identity cookie, the JSON API, Socket.IO and (when
 * given) Next's page handler. Tests create it without Next on port 0.
 */
export interface AppOptions {
  /** The data access the app needs (sessions, history, event writers). */
  store: ChatStore;
  /** What one person may hold at once (chats, running turns, sockets); defaults in session-service.ts. */
  personLimits?: PersonLimits;
  secret: string;
  runner: TurnRunner;
  /** A function when part of it changes while the server runs (MCP servers' state). */
  appInfo: AppInfo | (() => AppInfo);
  allowedOrigins?: string;
  /** Which Host names to answer (DNS rebinding); defaults to HOST, ALLOWED_HOSTS and PUBLIC_URL from the environment. */
  hosts?: HostSettings;
  /** Development mode (Next's dev build needs eval); defaults to whether Next's dev upgrade handler was given. */
  dev?: boolean;
  /** Next's request handler; without it non-API paths answer 404. */
  pageHandler?: (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;
  /** Next's WebSocket upgrades (hot reload in development); Socket.IO keeps its own path. */
  upgradeHandler?: (req: IncomingMessage, socket: Duplex, head: Buffer) => void | Promise<void>;
  /** Whether the database answers now (the health check's `database`). */
  dbUp?: () => Promise<boolean> | boolean;
  secureCookies?: boolean;
  /** APP_PASSWORD: when set, everything but the login page needs a login. */
  password?: string;
  /** Socket commands per connection, and per person across their connections. */
  rateLimit?: RateLimit;
  personRateLimit?: RateLimit;
  flushMs?: number;
  /** Largest session file an import accepts; defaults to IMPORT_MAX_MB. */
  importMaxBytes?: number;
  log?: Logger;
  /** The share links' collection; absent: no share links (their routes answer not_found). */
  shareLinks?: Models["ShareLink"];
  /**
   * Scale-out (REDIS_URL): this process's part of the cluster (Cluster.connect).
   * Absent: one process, as before, with no Redis code path taken.
   */
  cluster?: Cluster;
  /** This process's name (INSTANCE_ID), reported by the health check with Redis's state; absent: not reported. */
  instanceId?: string;
  /**
   * Accounts (AUTH_MODE other than `single`): the mode and the account collections. Absent
   * or `single`: a browser is a person through its `dlg_uid` cookie, as before.
   */
  accounts?: {
    mode: AuthMode;
    models: AccountServiceDeps["models"];
    /** The OpenID Connect client (server/accounts/oidc.ts) and its button's label; absent: no SSO. */
    sso?: { label: string; oidc: OidcClient } | null;
    throttle?: AccountServiceDeps["throttle"];
    creationThrottle?: AccountServiceDeps["creationThrottle"];
  };
}

export interface App {
  httpServer: HttpServer;
  io: AppServer;
  registry: SessionRegistry;
  sessions: SessionService;
  /** The account service, in the account modes (the SSO routes sign in through it). */
  accounts?: AccountService;
  /** Read-only share links, when `shareLinks` was given. */
  shares?: ShareService;
  /** Stops taking turns, ends the running ones (viewers are told), stores everything, releases leases; reports what it ended. */
  close(): Promise<{ ended: { sessionId: string; turnId: string }[] }>;
}

/**
 * Largest socket message Socket.IO accepts (bigger ones close the connection with no
 * reply). Above the largest prompt a command allows (100,000 characters, at most ~600 KB
 * as JSON), so a prompt somewhat too long still gets a clear validation error; far below
 * 16 MB, which let thirty messages stall the server for 2 s while it parsed them.
 */
const MAX_SOCKET_MESSAGE_BYTES = 2 * 1024 * 1024;

/** Cluster: rooms to reach one login's or one sign-in session's sockets on every process. */
const authRoom = (session: string) => `auth:${session}`;
const signInRoom = (signInSessionId: string) => `signin:${signInSessionId}`;

export function createApp(options: AppOptions): App {
  const identity = createIdentity(options.secret);
  const hosts = options.hosts ?? { host: env().HOST, allowedHosts: env().ALLOWED_HOSTS, publicUrl: env().PUBLIC_URL };
  const allowedHosts = hostRules(hosts);
  const allowedOrigins = [
    ...parseAllowedOrigins(options.allowedOrigins ?? ""),
    ...(hosts.publicUrl ? [new URL(hosts.publicUrl).origin] : []),
  ];
  const dev = options.dev ?? Boolean(options.upgradeHandler);
  const secureCookies = options.secureCookies ?? false;
  const login: LoginDeps | undefined = options.password
    ? {
        gate: createPasswordGate({ password: options.password, secret: options.secret }),
        throttle: createLoginThrottle(),
        devices: createKnownDevices(options.secret),
        allowedOrigins,
        secureCookies,
        onLogout: (session) => {
          // Cluster: the signed-out browser's sockets may be on any process.
          if (cluster) io.in(authRoom(session)).disconnectSockets(true);
          else for (const socket of io.of("/").sockets.values()) if (socket.data.authSession === session) socket.disconnect(true);
          if (shareNs) cutShareViewers(shareNs, (viewer) => viewer.authSession === session);
        },
      }
    : undefined;
  let io: AppServer;
  const { store, cluster } = options;
  /** Every tab of one person learns that their session list changed. */
  const sessionsChanged = (userId: string) =>
    void store
      // The first page only: a person with 10,000 chats is not sent all of them on every title change.
      .listSessionPage(userId, SESSION_PAGE_SIZE)
      .then((page) => io.to(userRoom(userId)).emit("sessions:changed", page.sessions))
      .catch((error: unknown) => options.log?.warn("could not send the session list", { error: String(error) }));

  /**
   * Share viewers of the event's chat (their own namespace, this process's sockets: in a
   * cluster the other processes relay from the chat's stream). Only when the room has
   * one: emitting encodes the packet, and almost every chat has no share viewer.
   */
  const relayToShareViewers = (event: SessionEvent) => {
    const room = sessionRoom(event.sessionId);
    if (shareNs?.adapter.rooms.has(room)) shareNs.local.to(room).emit("agent:event", event);
  };
  const registry = new SessionRegistry({
    store,
    runner: options.runner,
    // Cluster: this process's viewers only (chat and share namespaces); the other processes
    // get the event from the chat's stream and relay it to theirs.
    relay: cluster
      ? (event) => {
          io.local.to(sessionRoom(event.sessionId)).emit("agent:event", event);
          relayToShareViewers(event);
        }
      : (event) => {
          io.to(sessionRoom(event.sessionId)).emit("agent:event", event);
          relayToShareViewers(event);
        },
    cluster,
    onTitleChanged: sessionsChanged,
    log: options.log,
    flushMs: options.flushMs,
  });
  const sessions = new SessionService({
    store,
    registry,
    limits: options.personLimits,
    onSessionsChanged: sessionsChanged,
    onSessionDeleted: (sessionId) => {
      io.in(sessionRoom(sessionId)).socketsLeave(sessionRoom(sessionId));
      void shares
        ?.deleteForSession(sessionId)
        .catch((error: unknown) => options.log?.warn("could not remove the chat's share links", { error: String(error) }));
    },
    cluster,
  });
  let shareNs: ShareNamespace | undefined;
  const shares = options.shareLinks
    ? new ShareService({
        model: options.shareLinks,
        ownedSession: (ownerId, sessionId) => store.ownedSession(ownerId, sessionId),
        onEnded: (linkId, reason) => shareNs && endShareViewers(shareNs, linkId, reason),
      })
    : undefined;

  const accountMode = options.accounts && options.accounts.mode !== "single" ? options.accounts : undefined;
  const accounts = accountMode
    ? new AccountService({
        mode: accountMode.mode,
        models: accountMode.models,
        throttle: accountMode.throttle ?? createLoginThrottle(),
        // New accounts and reset attempts per address: generous for a team behind one address.
        creationThrottle: accountMode.creationThrottle ?? createLoginThrottle({ maxFailures: 20 }),
        deleteChat: (ownerId, sessionId) => sessions.delete(ownerId, sessionId),
        cancelTurns: (ownerId) => (cluster ? cluster.cancelOwnerTurns(ownerId) : registry.cancelTurns(ownerId)),
        cutSockets: (target) => {
          if (cluster) {
            // Sockets of the account on every process (rooms joined at connection).
            if ("signInSessionId" in target) io.in(signInRoom(target.signInSessionId)).disconnectSockets(true);
            else if (target.except) io.in(userRoom(target.accountId)).except(signInRoom(target.except)).disconnectSockets(true);
            else io.in(userRoom(target.accountId)).disconnectSockets(true);
            return;
          }
          for (const socket of io.of("/").sockets.values()) {
            const hit =
              "signInSessionId" in target
                ? socket.data.signInSessionId === target.signInSessionId
                : socket.data.userId === target.accountId && (!target.except || socket.data.signInSessionId !== target.except);
            if (hit) socket.disconnect(true);
          }
          if (shareNs) {
            cutShareViewers(shareNs, (viewer) =>
              "signInSessionId" in target
                ? viewer.signInSessionId === target.signInSessionId
                : viewer.accountId === target.accountId && (!target.except || viewer.signInSessionId !== target.except),
            );
          }
        },
        onSessionsChanged: sessionsChanged,
        sso: accountMode.sso ? { label: accountMode.sso.label } : null,
        log: options.log,
      })
    : undefined;
  const accountHttp = accounts ? { accounts, allowedOrigins, secureCookies, publicUrl: hosts.publicUrl, log: options.log } : undefined;
  const oidc = accountMode?.sso?.oidc;
  const oidcRoutes: OidcRouteDeps | undefined =
    accounts && oidc
      ? {
          oidc,
          signIn: (identity, meta) => accounts.signInWithSso(identity, meta),
          sessionCookie: (value) => sessionCookieHeader(value, secureCookies),
          // A sign-in session the browser already had ends (session fixation).
          endPreviousSession: (cookies) => accounts.revokeToken(cookies[SESSION_COOKIE]),
          secureCookies,
          log: options.log,
        }
      : undefined;
  /** A share viewer's sign-in: any account (account modes) or the APP_PASSWORD login; `{}` with no login at all. */
  const shareViewer = async (cookieHeader: string | undefined): Promise<ShareViewer | null> => {
    const cookies = parseCookie(cookieHeader ?? "");
    if (accounts) {
      const auth = await accounts.authenticate(cookies[SESSION_COOKIE]);
      return auth ? { accountId: auth.account._id, signInSessionId: auth.signInSessionId } : null;
    }
    if (login) {
      const authSession = login.gate.verify(cookies[AUTH_COOKIE]);
      return authSession ? { authSession } : null;
    }
    return {};
  };
  const shareHttp: ShareHttpDeps | undefined = shares
    ? { shares, sessions, allowedOrigins, viewer: shareViewer, log: options.log }
    : undefined;
  const apiDeps: ApiDeps = {
    sessions,
    allowedOrigins,
    dbUp: options.dbUp ?? (() => true),
    importMaxBytes: options.importMaxBytes ?? env().IMPORT_MAX_MB * 1024 * 1024,
    log: options.log,
    ...(cluster || options.instanceId
      ? {
          instance: () => ({
            instance: cluster?.instanceId ?? options.instanceId!,
            redis: cluster ? cluster.redisStatus() : ("off" as const),
          }),
        }
      : {}),
  };

  // A page rendered for `userId` reads their chats through the same door the socket uses.
  const viewer = (userId: string): PageViewer => ({ join: (sessionId) => sessions.join(userId, sessionId, undefined) });

  const httpServer = createServer((req, res) => {
    // A nonce per response (see headers.ts); the page handler finds it on the request.
    const csp = contentSecurityPolicy(dev, newNonce());
    hardenResponse(res, csp);
    withNonce(req, csp);
    // Before anything else, cookies included: a rebound name must not even get an identity.
    if (!hostAllowed(req.headers.host, allowedHosts)) {
      req.resume();
      refuseHost(res);
      return;
    }
    void (async () => {
      const cookies = parseCookie(req.headers.cookie ?? "");
      const url = new URL(req.url ?? "/", "http://local");
      // Share viewers come before the sign-in gates: a public link needs no sign-in (share-routes.ts).
      if (shareHttp) {
        const shared = await handleShareViewer(req, res, url, shareHttp);
        if (shared === "answered") return;
        if (shared === "page") {
          // The share page renders no chat of the requester's own: a page-viewer token a client made up goes.
          refusePageViewer(req);
          if (options.pageHandler) await options.pageHandler(req, res);
          else res.writeHead(404, { "content-type": "text/plain" }).end("Not found");
          return;
        }
      }
      if (accountHttp) {
        if (oidcRoutes && (await handleOidc(req, res, url, cookies, oidcRoutes))) return;
        // Account modes: the signed-in account is the person; an old `dlg_uid` is only read (for claiming).
        const gate = await gateAccountRequest(req, res, url, cookies, identity.verify(cookies[IDENTITY_COOKIE]), accountHttp);
        if (gate.answered) return;
        // No account here means a path open to all (the health check, the sign-in pages, static files).
        if (shareHttp && (await handleShareOwnerApi(req, res, url, gate.accountId ?? "", shareHttp))) return;
        if (await handleApi(req, res, gate.accountId ?? "", apiDeps)) return;
        // The page sees the account the socket handshake would accept, or no one.
        if (gate.accountId) admitPageViewer(req, res, viewer(gate.accountId));
        else refusePageViewer(req);
        if (options.pageHandler) await options.pageHandler(req, res);
        else res.writeHead(404, { "content-type": "text/plain" }).end("Not found");
        return;
      }
      if (url.pathname === ACCOUNT_ROUTES.state && req.method === "GET") {
        // Single mode answers the same question: no accounts here.
        res.writeHead(200, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" });
        res.end(JSON.stringify({ mode: "single", account: null, signUpOpen: false, sso: null, claimable: 0 }));
        return;
      }
      if (login && (await gateRequest(req, res, new URL(req.url ?? "/", "http://local"), cookies, login))) return;
      let userId = identity.verify(cookies[IDENTITY_COOKIE]);
      if (!userId) {
        const minted = identity.mint();
        userId = minted.userId;
        res.setHeader("set-cookie", identityCookieHeader(minted.cookieValue, secureCookies));
      }
      if (shareHttp && (await handleShareOwnerApi(req, res, url, userId, shareHttp))) return;
      const handled = await handleApi(req, res, userId, apiDeps);
      if (handled) return;
      if (options.pageHandler) {
        // Next reads the identity from the request like the API does; pass the new one on.
        if (!cookies[IDENTITY_COOKIE]) {
          const minted = stringifyCookie({ [IDENTITY_COOKIE]: identity.sign(userId) });
          req.headers.cookie = req.headers.cookie ? `${req.headers.cookie}; ${minted}` : minted;
        }
        // As the socket handshake: with APP_PASSWORD, only a logged-in browser is anyone
        // (the login page itself is served without one).
        if (!login || login.gate.verify(cookies[AUTH_COOKIE])) admitPageViewer(req, res, viewer(userId));
        else refusePageViewer(req);
        await options.pageHandler(req, res);
        return;
      }
      res.writeHead(404, { "content-type": "text/plain" }).end("Not found");
    })().catch((error: unknown) => {
      options.log?.error("request failed", { error: String(error) });
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
      res.end("Internal error");
    });
  });

  io = new Server(httpServer, {
    maxHttpBufferSize: MAX_SOCKET_MESSAGE_BYTES,
    // Other upgrades (Next's hot reload) are handed on below instead of being cut off.
    destroyUpgrade: !options.upgradeHandler,
    allowRequest: (req, callback) => callback(null, hostAllowed(req.headers.host, allowedHosts) && originAllowed(req, allowedOrigins)),
    ...(cluster ? { adapter: cluster.adapter() } : {}),
  });
  if (cluster) {
    cluster.bind(io, registry);
    io.on("connection", (socket) => {
      if (socket.data.authSession) void socket.join(authRoom(socket.data.authSession));
      if (socket.data.signInSessionId) void socket.join(signInRoom(socket.data.signInSessionId));
    });
  }
  io.use((socket, next) => {
    if (!accounts) {
      next();
      return;
    }
    // Account modes: a valid sign-in session, checked against the database at every handshake.
    const cookies = parseCookie(socket.request.headers.cookie ?? "");
    accounts.authenticate(cookies[SESSION_COOKIE]).then(
      (auth) => {
        if (!auth) {
          next(new Error(HANDSHAKE_SIGNED_OUT.accounts));
          return;
        }
        socket.data.userId = auth.account._id;
        socket.data.signInSessionId = auth.signInSessionId;
        next();
      },
      () => next(new Error("unavailable: the database is unreachable; try again in a moment")),
    );
  });
  io.use((socket, next) => {
    if (accounts) {
      next();
      return;
    }
    const cookies = parseCookie(socket.request.headers.cookie ?? "");
    const authSession = login?.gate.verify(cookies[AUTH_COOKIE]);
    if (login && !authSession) {
      next(new Error(HANDSHAKE_SIGNED_OUT.password));
      return;
    }
    if (authSession) socket.data.authSession = authSession;
    const userId = identity.verify(cookies[IDENTITY_COOKIE]);
    if (!userId) {
      next(new Error("unauthorized: reload the page to get a session cookie"));
      return;
    }
    socket.data.userId = userId;
    next();
  });
  if (options.upgradeHandler) {
    const upgrade = options.upgradeHandler;
    httpServer.on("upgrade", (req, socket, head) => {
      if (req.url?.startsWith("/socket.io/")) return;
      if (hostAllowed(req.headers.host, allowedHosts)) void upgrade(req, socket as Duplex, head as Buffer);
      else socket.destroy();
    });
  }
  registerHandlers(io, {
    sessions,
    appInfo: options.appInfo,
    rateLimit: options.rateLimit,
    personRateLimit: options.personRateLimit,
    log: options.log,
  });
  if (shares) shareNs = registerShareNamespace(io, { shares, sessions, viewer: shareViewer, log: options.log });

  return {
    httpServer,
    io,
    registry,
    sessions,
    accounts,
    shares,
    async close() {
      const ended = await registry.shutdown();
      await io.close();
      await cluster?.close();
      await new Promise<void>((resolve) => (httpServer.listening ? httpServer.close(() => resolve()) : resolve()));
      return { ended };
    },
  };
}
