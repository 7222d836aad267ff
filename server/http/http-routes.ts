import type { IncomingMessage, ServerResponse } from "node:http";
import type { ShareViewer } from "@/lib/contracts";
import { env } from "@/lib/env";
import type { Logger } from "@/lib/log";
import type { AccountService } from "@/server/accounts/account-service";
import type { AccountThrottles } from "@/server/accounts/sign-in-throttles";
import type { AttachmentHttpDeps } from "@/server/attachments/attachment-routes";
import type { AttachmentService } from "@/server/attachments/attachment-service";
import type { OidcClient } from "@/server/accounts/oidc";
import type { Cluster } from "@/server/cluster/cluster";
import type { SessionService } from "@/server/sessions/session-service";
import type { ShareHttpDeps } from "@/server/share/share-routes";
import type { ShareService } from "@/server/share/share-service";
import { SESSION_COOKIE, sessionCookieHeader, type AccountHttpDeps } from "./account-routes";
import type { ApiDeps } from "./api";
import type { HttpSettings } from "./http-settings";
import type { OidcRouteDeps } from "./oidc-routes";
import type { AgentHttpDeps } from "@/server/agents/agent-routes";
import type { AgentService } from "@/server/agents/agent-service";
import type { UsageHttpDeps } from "@/server/usage/usage-routes";
import type { UsageService } from "@/server/usage/usage-service";
import type { ApiTokenHttpDeps } from "@/server/api-tokens/api-token-routes";
import type { ApiTokenService } from "@/server/api-tokens/api-token-service";
import type { Limiter } from "@/server/limiter-store";
import type { NotificationHttpDeps } from "@/server/notifications/notification-routes";
import type { NotificationService } from "@/server/notifications/notification-service";

/** Delegate's A2A endpoint (server/a2a-server/): answers its paths, false for any other. */
export type A2ARoute = (req: IncomingMessage, res: ServerResponse, pathname: string) => Promise<boolean>;
import { signInRoutes, type SignInHttpDeps } from "@/server/oauth/sign-in-routes";

/** The groups of HTTP routes this instance serves, each with what it needs; absent: not served. */
export interface HttpRoutes {
  api: ApiDeps;
  /** The account modes' sign-in gate and routes. */
  account?: AccountHttpDeps;
  /** Single sign-on, when the account modes have an OpenID Connect client. */
  oidc?: OidcRouteDeps;
  /** Share links, when their collection was given. */
  share?: ShareHttpDeps;
  /** Chats' attachments (upload, list, download, delete). */
  attachments?: AttachmentHttpDeps;
  /** Subagent definitions made in the app. */
  agents?: AgentHttpDeps;
  /** The usage report. */
  usage?: UsageHttpDeps;
  /** A person's API tokens. */
  tokens?: ApiTokenHttpDeps;
  /** Delegate as an A2A server (A2A_SERVER_ENABLED); a bearer token, not a sign-in, opens it. */
  a2a?: A2ARoute;
  /** People's sign-ins to MCP servers and remote agents with `oauth`, when there are any. */
  signIn?: ReturnType<typeof signInRoutes>;
  /** Browser notifications: the setting, the VAPID key, push subscriptions. */
  notifications?: NotificationHttpDeps;
}

export function httpRoutes(deps: {
  settings: Pick<HttpSettings, "allowedOrigins" | "secureCookies" | "hosts">;
  sessions: SessionService;
  accounts?: AccountService;
  accountThrottles?: AccountThrottles;
  oidc?: OidcClient;
  shares?: ShareService;
  shareViewer: (cookieHeader: string | undefined) => Promise<ShareViewer | null>;
  attachments?: AttachmentService;
  agents?: AgentService;
  usage?: UsageService;
  apiTokens?: ApiTokenService;
  notifications?: NotificationService;
  /** Token creations per person. */
  tokenCreations?: Pick<Limiter, "consume">;
  a2a?: A2ARoute;
  signIns?: SignInHttpDeps["signIns"];
  dbUp?: () => Promise<boolean> | boolean;
  importMaxBytes?: number;
  importBodyTimeoutMs?: number;
  cluster?: Pick<Cluster, "instanceId" | "redisStatus">;
  instanceId?: string;
  log?: Logger;
}): HttpRoutes {
  const { sessions, accounts, accountThrottles, oidc, shares, cluster, log } = deps;
  const { allowedOrigins, secureCookies } = deps.settings;
  return {
    api: {
      sessions,
      allowedOrigins,
      dbUp: deps.dbUp ?? (() => true),
      importMaxBytes: deps.importMaxBytes ?? env().IMPORT_MAX_MB * 1024 * 1024,
      importBodyTimeoutMs: deps.importBodyTimeoutMs ?? env().IMPORT_BODY_TIMEOUT_MS,
      log,
      ...(cluster || deps.instanceId
        ? {
            instance: () => ({
              instance: cluster?.instanceId ?? deps.instanceId!,
              redis: cluster ? cluster.redisStatus() : ("off" as const),
            }),
          }
        : {}),
    },
    account:
      accounts && accountThrottles
        ? { accounts, throttles: accountThrottles, allowedOrigins, secureCookies, publicUrl: deps.settings.hosts.publicUrl, log }
        : undefined,
    oidc:
      accounts && oidc
        ? {
            oidc,
            signIn: (identity, meta) => accounts.signInWithSso(identity, meta),
            sessionCookie: (value) => sessionCookieHeader(value, secureCookies),
            // A sign-in session the browser already had ends (session fixation).
            endPreviousSession: (cookies) => accounts.revokeToken(cookies[SESSION_COOKIE]),
            secureCookies,
            log,
          }
        : undefined,
    share: shares ? { shares, sessions, allowedOrigins, viewer: deps.shareViewer, log } : undefined,
    attachments: deps.attachments
      ? {
          attachments: deps.attachments,
          allowedOrigins,
          bodyTimeoutMs: deps.importBodyTimeoutMs ?? env().IMPORT_BODY_TIMEOUT_MS,
          log,
        }
      : undefined,
    agents: deps.agents ? { agents: deps.agents, allowedOrigins, log } : undefined,
    usage: deps.usage ? { usage: deps.usage, log } : undefined,
    tokens: deps.apiTokens
      ? { tokens: deps.apiTokens, allowedOrigins, ...(deps.tokenCreations ? { creations: deps.tokenCreations } : {}), log }
      : undefined,
    a2a: deps.a2a,
    notifications: deps.notifications ? { notifications: deps.notifications, allowedOrigins, log } : undefined,
    signIn: deps.signIns
      ? signInRoutes({
          signIns: deps.signIns,
          allowedOrigins,
          ...(deps.settings.hosts.publicUrl ? { publicUrl: deps.settings.hosts.publicUrl } : {}),
          ...(log ? { log } : {}),
        })
      : undefined,
  };
}
