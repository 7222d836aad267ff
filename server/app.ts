import { createServer } from "node:http";
import { createIdentity } from "@/server/accounts/identity";
import { connectionLimits, limitConnections, serverTimeouts } from "@/server/http/connection-limits";
import { httpRoutes } from "@/server/http/http-routes";
import { httpSettings } from "@/server/http/http-settings";
import { createRequestHandler } from "@/server/http/request-handler";
import { AppSockets } from "@/server/realtime/app-sockets";
import { joinSignInRooms } from "@/server/realtime/cut-sockets";
import { registerHandlers } from "@/server/realtime/handlers";
import { presenceAnnouncer } from "@/server/realtime/presence";
import { memoryOpenSockets, redisOpenSockets } from "@/server/realtime/open-sockets";
import { handshakeAuth } from "@/server/realtime/handshake";
import { createIoServer, forwardUpgrades } from "@/server/realtime/io-server";
import { registerShareNamespace } from "@/server/share/share-socket";
import { shareViewerSignIn } from "@/server/share/share-viewer";
import type { App, AppOptions } from "./app-options";
import { createServices } from "./app-services";
import { closeApp } from "./shutdown";
import { createAppMetrics } from "@/server/metrics/app-metrics";
import { a2aServer } from "@/server/a2a-server/a2a-routes";
import { APP_VERSION } from "@/lib/app-version";

export type { App, AppOptions } from "./app-options";

/** Tokens one person may make per minute: enough for any person, too few to fill the collection. */
const TOKEN_CREATIONS = { name: "api-token-create", points: 10, durationS: 60 };

/**
 * The app: its services, the HTTP handler in front of them, the Socket.IO server on the
 * same HTTP server, and how it stops. The services come first and reach the sockets
 * through `sockets`, set once the Socket.IO server exists (it needs the HTTP server,
 * which needs the services).
 */
export function createApp(options: AppOptions): App {
  const { cluster, log } = options;
  const settings = httpSettings(options);
  const identity = createIdentity(options.secret);
  const sockets = new AppSockets();
  const metrics = options.metrics ?? createAppMetrics();
  const {
    login,
    registry,
    sessions,
    shares,
    attachments,
    accounts,
    accountThrottles,
    limiterStore,
    agents,
    usage,
    apiTokens,
    taps,
    notifications,
    members,
  } = createServices(options, settings, sockets, metrics);
  const shareViewer = shareViewerSignIn({ accounts, login });

  const routes = httpRoutes({
    settings,
    sessions,
    accounts,
    accountThrottles,
    oidc: options.accounts?.sso?.oidc,
    shares,
    shareViewer,
    attachments,
    agents,
    usage,
    apiTokens,
    notifications,
    tokenCreations: limiterStore.limiter(TOKEN_CREATIONS),
    a2a:
      apiTokens && options.a2aServer
        ? a2aServer({
            tokens: apiTokens,
            sessions,
            taps,
            tasks: options.a2aServer.tasks,
            skills: options.a2aServer.skills,
            ...(options.a2aServer.publicUrl ? { publicUrl: options.a2aServer.publicUrl } : {}),
            ...(options.a2aServer.heartbeatMs ? { heartbeatMs: options.a2aServer.heartbeatMs } : {}),
            version: APP_VERSION,
            log,
          })
        : undefined,
    ...(options.signIns ? { signIns: options.signIns } : {}),
    dbUp: options.dbUp,
    importMaxBytes: options.importMaxBytes,
    importBodyTimeoutMs: options.importBodyTimeoutMs,
    cluster,
    instanceId: options.instanceId,
    log,
  });
  const limits = connectionLimits(options.connections, options.importBodyTimeoutMs);
  const httpServer = createServer(
    serverTimeouts(limits),
    createRequestHandler({
      settings,
      routes,
      identity,
      login,
      sessions,
      pageHandler: options.pageHandler,
      log,
      health: {
        dbUp: options.dbUp ?? (() => true),
        ...(cluster ? { redis: () => cluster.redisStatus() } : {}),
        ...(options.dbRestarting ? { dbRestarting: options.dbRestarting } : {}),
        stopping: () => !registry.accepting,
      },
      metrics: {
        registry: metrics.registry,
        ...(options.metricsToken ? { token: options.metricsToken } : {}),
        ...(options.metricsLoopback ? { isLoopback: options.metricsLoopback } : {}),
      },
    }),
  );
  limitConnections(httpServer, limits, log);

  const io = createIoServer(httpServer, {
    allowedHosts: settings.allowedHosts,
    allowedOrigins: settings.allowedOrigins,
    adapter: cluster?.adapter(),
    upgradeHandler: options.upgradeHandler,
  });
  sockets.io = io;
  metrics.readGauges({
    sockets: () => io.engine.clientsCount,
    sessions: () => registry.openCount,
    runningTurns: () => registry.runningCount,
  });
  if (cluster) {
    cluster.bind(io, registry);
    joinSignInRooms(io);
  }
  io.use(handshakeAuth({ accounts, login, identity }));
  if (options.upgradeHandler) forwardUpgrades(httpServer, options.upgradeHandler, settings.allowedHosts);
  const openSockets = cluster ? redisOpenSockets(cluster.limitsClient, cluster.instanceId, { log }) : memoryOpenSockets();
  registerHandlers(io, {
    sessions,
    agents,
    appInfo: options.appInfo,
    rateLimit: options.rateLimit,
    personRateLimit: options.personRateLimit,
    limiterStore,
    openSockets,
    log,
    members,
    ...(members.enabled ? { presence: presenceAnnouncer(io, options.store.members, log) } : {}),
  });
  if (shares)
    sockets.shareNs = registerShareNamespace(io, {
      shares,
      sessions,
      viewer: shareViewer,
      log,
      people: (sessionId) => options.store.members.people(sessionId),
    });

  return {
    httpServer,
    io,
    registry,
    sessions,
    accounts,
    shares,
    agents,
    apiTokens,
    notifications,
    members,
    close: () => closeApp({ registry, io, cluster, openSockets, httpServer }),
  };
}
