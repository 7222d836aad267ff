import { env } from "@/lib/env";
import { AccountService } from "@/server/accounts/account-service";
import { createKnownDevices } from "@/server/accounts/known-device";
import { admitEvery } from "@/server/accounts/login-throttle";
import { createPasswordGate } from "@/server/accounts/password-gate";
import { accountThrottles, gateThrottles, type AccountThrottles } from "@/server/accounts/sign-in-throttles";
import type { HttpSettings } from "@/server/http/http-settings";
import type { LoginDeps } from "@/server/http/login";
import type { AppSockets } from "@/server/realtime/app-sockets";
import { cutAccountSockets, cutLoginSockets, cutMember } from "@/server/realtime/cut-sockets";
import { eventRelay, sessionListNotifier } from "@/server/realtime/relay";
import { sessionRoom } from "@/server/realtime/types";
import { ChatSettingsService } from "@/server/catalog/chat-settings";
import { SessionRegistry } from "@/server/sessions/registry";
import { SessionService } from "@/server/sessions/session-service";
import { endShareViewers } from "@/server/share/share-socket";
import { ShareService } from "@/server/share/share-service";
import { AttachmentService } from "@/server/attachments/attachment-service";
import { memoryLimiterStore, redisLimiterStore, type LimiterStore } from "@/server/limiter-store";
import { BUILTIN_DEFINITIONS } from "@/lib/agent/definitions";
import { AgentService } from "@/server/agents/agent-service";
import { AgentStore } from "@/server/agents/agent-store";
import { UsageService } from "@/server/usage/usage-service";
import { accountLabels } from "@/server/usage/account-labels";
import type { AppMetrics } from "@/server/metrics/app-metrics";
import type { Logger } from "@/lib/log";
import { logTurnEnd } from "@/server/logging/turn-log";
import type { SessionObserver } from "@/server/sessions/session-observer";
import type { AppOptions } from "./app-options";
import { ApiTokenService } from "@/server/api-tokens/api-token-service";
import { TurnTaps } from "@/server/a2a-server/turn-taps";
import { NotificationService } from "@/server/notifications/notification-service";
import { chatGate } from "@/server/members/chat-gate";
import { MemberService } from "@/server/members/member-service";

/** The services behind both doors, HTTP and Socket.IO; what they tell sockets goes through `sockets`. */
export interface AppServices {
  login?: LoginDeps;
  registry: SessionRegistry;
  sessions: SessionService;
  shares?: ShareService;
  attachments: AttachmentService;
  accounts?: AccountService;
  accountThrottles?: AccountThrottles;
  /** Where command budgets and login throttles count: Redis when scaled out, else memory. */
  limiterStore: LimiterStore;
  agents?: AgentService;
  usage?: UsageService;
  apiTokens?: ApiTokenService;
  /** Listeners on the chats' events in this process (the A2A server follows its turns through them). */
  taps: TurnTaps;
  notifications?: NotificationService;
  /** Chats' members and their roles (docs/members.md). */
  members: MemberService;
}

/**
 * The chats (the registry of open sessions and the service both doors call), share links,
 * accounts and the APP_PASSWORD login, wired to each other and to the sockets they tell.
 */
export function createServices(
  options: AppOptions,
  settings: Pick<HttpSettings, "allowedOrigins" | "secureCookies">,
  sockets: AppSockets,
  metrics: AppMetrics,
): AppServices {
  const { store, cluster, log } = options;
  const clustered = Boolean(cluster);
  if (options.password && !options.loginSessions) throw new Error("APP_PASSWORD needs the login sessions' collection (loginSessions)");
  const limiterStore = cluster ? redisLimiterStore(cluster.limitsClient, log) : memoryLimiterStore();
  const login: LoginDeps | undefined = options.password
    ? {
        gate: createPasswordGate({ password: options.password, secret: options.secret, sessions: options.loginSessions! }),
        throttle: gateThrottles(limiterStore),
        devices: createKnownDevices(options.secret),
        allowedOrigins: settings.allowedOrigins,
        secureCookies: settings.secureCookies,
        onLogout: (session) => cutLoginSockets(sockets, clustered, session),
      }
    : undefined;
  const sessionsChanged = sessionListNotifier(sockets, store, log);
  const taps = new TurnTaps();
  const relay = eventRelay(sockets, clustered);
  const chatSettings = new ChatSettingsService(store, options.catalog);
  const gate = chatGate(store.members);
  const accountMode = options.accounts && options.accounts.mode !== "single" ? options.accounts : undefined;
  // Only an account can be an admin: in `single` mode nobody sees anyone else's usage or makes shared definitions.
  const isAdmin = async (userId: string) =>
    Boolean(accountMode && (await accountMode.models.Account.exists({ _id: userId, role: "admin", disabled: { $ne: true } })));
  const agents = options.agentModels
    ? new AgentService({
        store: new AgentStore(options.agentModels),
        operator: options.operatorAgents ?? BUILTIN_DEFINITIONS,
        isAdmin,
        allowed: gate,
        models: options.catalog,
        log,
      })
    : undefined;
  const notifications = options.notifications
    ? new NotificationService({
        ...options.notifications,
        // The owner and the collaborators: the people who can act on what they are told.
        audienceOf: (sessionId) => store.members.ids(sessionId, "act"),
        // A person with a tab on the chat is told by that page (it notifies while hidden): no push.
        watching: async (personId, sessionId) =>
          (await sockets.io.in(sessionRoom(sessionId)).fetchSockets()).some((socket) => socket.data.userId === personId),
        ...(log ? { log } : {}),
      })
    : undefined;
  const observe = log ? withTurnLog(metrics.sessions, log) : metrics.sessions;
  const registry = new SessionRegistry({
    store,
    runner: options.runner,
    // Read for each turn as it starts: a definition saved through any process is in the next turn.
    turnSettings: async (ownerId, sessionId) => {
      const [settings, turnAgents] = await Promise.all([chatSettings.forTurn(ownerId, sessionId), agents?.forTurn(ownerId, sessionId)]);
      return turnAgents ? { ...settings, agents: turnAgents } : settings;
    },
    relay: (event) => {
      relay(event);
      taps.emit(event);
    },
    cluster,
    onTitleChanged: sessionsChanged,
    log,
    flushMs: options.flushMs,
    observe: notifications ? withNotifications(observe, notifications) : observe,
  });
  const accountModels = accountMode?.models;
  const shares = options.shareLinks
    ? new ShareService({
        model: options.shareLinks,
        // Share links are the owner's to make and end: a member is told so.
        ownedSession: async (ownerId, sessionId) => (await gate(ownerId, sessionId, "share")).summary,
        onEnded: (linkId, reason) => sockets.shareNs && endShareViewers(sockets.shareNs, linkId, reason),
        // A chat kept from before accounts has a cookie identity as owner, no account: it stays shared.
        ownerDisabled: accountModels && (async (ownerId) => Boolean(await accountModels.Account.exists({ _id: ownerId, disabled: true }))),
      })
    : undefined;
  const sessions = new SessionService({
    store,
    registry,
    chatSettings,
    catalog: options.catalog,
    limits: options.personLimits,
    ...(options.quotas ? { quotas: options.quotas } : {}),
    readsPerPerson: options.readsPerPerson ?? env().MAX_READS_PER_PERSON,
    onSessionsChanged: sessionsChanged,
    onSessionDeleted: (sessionId) => {
      sockets.io.in(sessionRoom(sessionId)).socketsLeave(sessionRoom(sessionId));
      void shares
        ?.deleteForSession(sessionId)
        .catch((error: unknown) => log?.warn("could not remove the chat's share links", { error: String(error) }));
    },
    cluster,
  });
  const attachments = new AttachmentService({
    store: store.attachments,
    allowed: gate,
  });
  const accounts = accountMode
    ? new AccountService({
        mode: accountMode.mode,
        models: accountMode.models,
        // The account routes throttle through `accountThrottles` (shared by every process when scaled out).
        throttle: admitEvery,
        creationThrottle: admitEvery,
        deleteChat: (ownerId, sessionId) => sessions.delete(ownerId, sessionId),
        cancelTurns: (ownerId) => (cluster ? cluster.cancelOwnerTurns(ownerId) : registry.cancelTurns(ownerId)),
        cutSockets: (target) => cutAccountSockets(sockets, clustered, target),
        onSessionsChanged: sessionsChanged,
        sso: accountMode.sso ? { label: accountMode.sso.label } : null,
        ...(options.accountQuotas ? { quotas: options.accountQuotas } : {}),
        log,
      })
    : undefined;
  const members = new MemberService({
    store: store.members,
    gate,
    accounts: Boolean(accountMode),
    onSessionsChanged: sessionsChanged,
    onMembersChanged: (sessionId) => sockets.io.to(sessionRoom(sessionId)).emit("members:changed", { sessionId }),
    onRemoved: (sessionId, accountId) => cutMember(sockets, sessionId, accountId),
    onTyping: (notice) => sockets.io.to(sessionRoom(notice.sessionId)).emit("member:typing", notice),
  });
  const throttles = accountMode ? accountThrottles(limiterStore, accountMode) : undefined;
  const usage = options.usageModels
    ? new UsageService({ models: options.usageModels, isAdmin, personLabels: accountMode && (() => accountLabels(accountMode.models)) })
    : undefined;
  const apiTokens = options.apiTokens
    ? new ApiTokenService({
        model: options.apiTokens,
        ownerActive:
          accountModels && (async (ownerId) => Boolean(await accountModels.Account.exists({ _id: ownerId, disabled: { $ne: true } }))),
      })
    : undefined;
  return {
    login,
    registry,
    sessions,
    shares,
    attachments,
    accounts,
    accountThrottles: throttles,
    limiterStore,
    agents,
    usage,
    apiTokens,
    taps,
    notifications,
    members,
  };
}

/** The metrics' observer, and a log line as each turn this process ran ends (server/logging/turn-log.ts). */
function withTurnLog(metrics: SessionObserver, log: Pick<Logger, "info" | "warn">): SessionObserver {
  return {
    ...metrics,
    event(event, sessionId) {
      metrics.event(event, sessionId);
      logTurnEnd(log, event, sessionId);
    },
  };
}

/** The observer, and each event of a turn this process runs to the notifications (once per event across a cluster). */
function withNotifications(observer: SessionObserver, notifications: NotificationService): SessionObserver {
  return {
    ...observer,
    event(event, sessionId) {
      observer.event(event, sessionId);
      notifications.observe(event, sessionId);
    },
  };
}
