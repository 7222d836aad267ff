import type { IncomingMessage, Server as HttpServer, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import type { AppInfo, AuthMode } from "@/lib/contracts";
import type { Logger } from "@/lib/log";
import type { Models } from "@/models";
import type { UsageModels } from "@/server/usage/usage-reader";
import type { AccountService, AccountServiceDeps } from "@/server/accounts/account-service";
import type { Throttle } from "@/server/accounts/login-throttle";
import type { OidcClient } from "@/server/accounts/oidc";
import type { Cluster } from "@/server/cluster/cluster";
import type { AppMetrics } from "@/server/metrics/app-metrics";
import type { ModelChoices } from "@/server/catalog/chat-settings";
import type { ChatStore } from "@/server/data/store";
import type { MemberService } from "@/server/members/member-service";
import type { ConnectionLimits } from "@/server/http/connection-limits";
import type { HostSettings } from "@/server/http/hosts";
import type { RateLimit } from "@/server/realtime/rate-limit";
import type { SignInHttpDeps } from "@/server/oauth/sign-in-routes";
import type { AppServer } from "@/server/realtime/types";
import type { SessionRegistry } from "@/server/sessions/registry";
import type { PersonLimits } from "@/server/sessions/person-limits";
import type { QuotaLedger } from "@/server/budgets/quota-ledger";
import type { AccountQuotas } from "@/server/budgets/account-quotas";
import type { SessionService } from "@/server/sessions/session-service";
import type { TurnRunner } from "@/server/sessions/turn-runner";
import type { ShareService } from "@/server/share/share-service";
import type { SubagentDefinition } from "@/lib/agent/definitions";
import type { AgentService } from "@/server/agents/agent-service";
import type { CardSkill } from "@/lib/a2a-server/agent-card";
import type { ApiTokenService } from "@/server/api-tokens/api-token-service";
import type { NotificationServiceDeps, NotificationService } from "@/server/notifications/notification-service";

/**
 * One HTTP server for everything: identity cookie, the JSON API, Socket.IO and (when
 * given) Next's page handler. Tests create it without Next on port 0. Its own module so
 * the parts createApp composes can read the options without importing createApp.
 */
export interface AppOptions {
  /** The data access the app needs (sessions, history, event writers). */
  store: ChatStore;
  /** What one person may hold at once (chats, running turns, sockets); defaults in session-service.ts. */
  personLimits?: PersonLimits;
  /** A person's daily and monthly spending quotas (QUOTA_*); absent: none. */
  quotas?: QuotaLedger;
  /**
   * The account modes' per-account quotas (their ledger is `quotas`): the admin sets them,
   * each person reads theirs. Absent: the accounts pages show no quotas.
   */
  accountQuotas?: AccountQuotas;
  secret: string;
  runner: TurnRunner;
  /**
   * The models a person may pick per chat (server/catalog/). Absent: no picker, and every
   * turn runs on the runner's own model.
   */
  catalog?: ModelChoices;
  /** A function when part of it changes while the server runs (MCP servers' state). */
  /** The app's facts; a function is asked per person (their own MCP servers' states). */
  appInfo: AppInfo | ((ownerId?: string) => AppInfo | Promise<AppInfo>);
  /** What people sign in to (MCP servers and remote agents with `oauth`), when there is any: its routes are served. */
  signIns?: SignInHttpDeps["signIns"];
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
  /** The embedded database is being started again after its process died (readiness says so). */
  dbRestarting?: () => boolean;
  /** The app's metrics (server/metrics/); absent: the app makes its own. Given when the cluster, made first, reports to them too. */
  metrics?: AppMetrics;
  /** METRICS_TOKEN: the bearer token /metrics asks of requests from outside the loopback interface; absent: they are refused. */
  metricsToken?: string;
  /** Which remote addresses /metrics takes for the loopback interface (tests play a remote one from 127.0.0.2). */
  metricsLoopback?: (address: string | undefined) => boolean;
  secureCookies?: boolean;
  /** APP_PASSWORD: when set, everything but the login page needs a login. */
  password?: string;
  /** The APP_PASSWORD login sessions' collection (shared by every process); required with `password`. */
  loginSessions?: Models["LoginSession"];
  /** Socket commands per connection, and per person across their connections. */
  rateLimit?: RateLimit;
  personRateLimit?: RateLimit;
  flushMs?: number;
  /** Largest session file an import accepts; defaults to IMPORT_MAX_MB. */
  importMaxBytes?: number;
  /** How long an import's upload may take to arrive whole; defaults to IMPORT_BODY_TIMEOUT_MS. */
  importBodyTimeoutMs?: number;
  /** Connection caps and HTTP timeouts; each defaults to its setting (MAX_CONNECTIONS, …). */
  connections?: Partial<ConnectionLimits>;
  /** Large reads (history pages, exports, whole outputs) one person runs at once; defaults to MAX_READS_PER_PERSON. */
  readsPerPerson?: number;
  log?: Logger;
  /**
   * The collections of subagent definitions made in the app (and the chats, which turn them
   * off); absent: no such definitions (their commands answer not_found), turns use the operator's.
   */
  agentModels?: Pick<Models, "AgentDefinition" | "Session">;
  /** The collections the usage page sums (turns, runs, chats, definitions); absent: no usage route. */
  usageModels?: UsageModels;
  /** The operator's definitions (built-ins and SUBAGENTS_FILE), listed read-only; defaults to the built-ins. */
  operatorAgents?: readonly SubagentDefinition[];
  /**
   * Browser notifications (docs/notifications.md): their collections, the VAPID settings,
   * the push hosts a test allows, who hears of a chat. Absent: no notification routes, no pushes.
   */
  notifications?: Omit<NotificationServiceDeps, "log" | "watching">;
  /** The API tokens' collection; absent: no token routes. */
  apiTokens?: Models["ApiToken"];
  /**
   * Delegate as an A2A server (A2A_SERVER_ENABLED), which needs `apiTokens`: its tasks'
   * collection, the skills its card lists besides the master, and the card's origin
   * (PUBLIC_URL; absent: each request's own). Absent: not served.
   */
  a2aServer?: { tasks: Models["A2ATask"]; skills: readonly CardSkill[]; publicUrl?: string; heartbeatMs?: number };
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
    /** Every sign-in key through this one throttle instead of the defaults (sign-in-throttles.ts). */
    throttle?: Throttle;
    creationThrottle?: Throttle;
  };
}

export interface App {
  httpServer: HttpServer;
  io: AppServer;
  registry: SessionRegistry;
  sessions: SessionService;
  /** The account service, in the account modes (the SSO routes sign in through it). */
  accounts?: AccountService;
  /** Subagent definitions made in the app, when `agentModels` was given. */
  agents?: AgentService;
  /** API tokens, when `apiTokens` was given. */
  apiTokens?: ApiTokenService;
  /** Read-only share links, when `shareLinks` was given. */
  shares?: ShareService;
  /** Browser notifications, when `notifications` was given. */
  notifications?: NotificationService;
  /** Chats' members: `peopleWhoCanAct` / `peopleWhoCanSee` name who a chat's news is for. */
  members: MemberService;
  /** Stops taking turns, ends the running ones (viewers are told), stores everything, releases leases; reports what it ended. */
  close(): Promise<{ ended: { sessionId: string; turnId: string }[] }>;
}
