// First: tracing (when OTEL_* turns it on) must start before the modules it instruments load.
import { vapidSubject } from "@/server/notifications/vapid-keys";
import { telemetry } from "@/server/telemetry/preload";
import next from "next";
import { loadEnvFile } from "node:process";
import { existsSync } from "node:fs";
import { SubagentConfigError } from "@/lib/agent/definitions";
import { listedSkills } from "@/lib/a2a-server/agent-card";
import { EndpointsConfigError } from "@/lib/catalog/endpoints-config";
import { EnvError, env as loadEnv, variable, type Env } from "@/lib/env";
import { McpConfigError } from "@/lib/mcp/config";
import { buildRuntime } from "@/server/agent/build-runtime";
import { createMcpOAuthStore } from "@/server/oauth/oauth-store";
import { createSecretBox, tokenKey } from "@/server/oauth/secret-box";
import { createApp } from "@/server/app";
import { loadOrCreateSecret } from "@/server/accounts/identity";
import { connectDatabase, redact } from "@/server/db/connect";
import { mongoStore } from "@/server/data/store";
import { loggerFromEnv, type ServerLogger } from "@/server/log";
import { routeProcessOutput } from "@/server/logging/process-output";
import { oidcFromEnv, type OidcClient } from "@/server/accounts/oidc";
import { createSigner } from "@/server/accounts/signer";
import { clusterFromEnv } from "@/server/cluster/from-env";
import { QuotaLedger } from "@/server/budgets/quota-ledger";
import { quotaFromEnv } from "@/server/budgets/quota-settings";
import { AccountQuotas } from "@/server/budgets/account-quotas";
import { createAppMetrics } from "@/server/metrics/app-metrics";

/**
 * The one process: Next pages, the JSON API and Socket.IO on one port. `--dev` runs Next
 * in development mode (hot reload); otherwise it serves the production build.
 */
async function main(log: ServerLogger): Promise<void> {
  const dev = process.argv.includes("--dev");
  const config = loadEnv();

  const db = await connectDatabase(config, log);
  log.info(`Database ready at ${redact(db.uri)}${db.embedded ? " (embedded)" : ""}`);
  const store = mongoStore(db.models);
  // Made before the cluster, which reports its relay lag and takeovers to them.
  const metrics = createAppMetrics();
  // REDIS_URL: one of several processes. Unset: nothing below touches Redis.
  const { instanceId, cluster } = await clusterFromEnv(config, { models: db.models, store, log, observe: metrics.cluster });
  if (cluster) log.info(`Cluster member ${instanceId} (Redis ${cluster.redisStatus()}, leases of ${config.LEASE_MS} ms)`);
  // Cluster: other live processes' turns are theirs; only turns with no live lease are ghosts.
  const swept = await store.ghostSweep(undefined, cluster ? { exceptSessions: await cluster.heldSessions() } : undefined);
  if (swept.turns + swept.runs > 0) log.warn("Marked work left running by the last process as ended (ghost sweep)", swept);
  // In the background: chats from before search become searchable as they are reached.
  void store
    .backfillSearch()
    .then((n) => n > 0 && log.info(`Indexed ${n} chats for search`))
    .catch((error: unknown) => log.warn("could not index older chats for search", { error: String(error) }));

  if (config.AUTH_MODE === "invite" && !(await db.models.Account.exists({}))) {
    log.warn("AUTH_MODE=invite and no account yet: the first person to sign up (no invitation needed) becomes the admin");
  }
  const secret = loadOrCreateSecret(config.SESSION_SECRET, config.DATA_DIR);
  // People's sign-ins to MCP servers and remote agents with `oauth`, sealed under MCP_TOKEN_KEY or a key derived from the session secret.
  const signInDeps = {
    store: createMcpOAuthStore(db.models, createSecretBox(tokenKey(config.MCP_TOKEN_KEY, secret))),
    lookup: variable,
  };
  const { runtime, appInfo, mcp, signIns, catalog, definitions } = buildRuntime(config, log, undefined, telemetry?.tracer, signInDeps);
  if (telemetry) log.info("Tracing on: every turn is a trace (OTEL_* settings; see docs/tracing.md)");
  const nextApp = next({ dev, dir: process.cwd(), hostname: config.HOST, port: config.PORT });
  await nextApp.prepare();
  const handle = nextApp.getRequestHandler();

  // In the account modes the admin may give an account its own quota over QUOTA_*; in `single` mode QUOTA_* is everyone's.
  const accountQuotas =
    config.AUTH_MODE === "single"
      ? undefined
      : new AccountQuotas(db.models.Account, db.models.QuotaUsage, quotaFromEnv(config), undefined, log);
  const app = createApp({
    store,
    secret,
    runner: runtime,
    appInfo,
    ...(signIns ? { signIns } : {}),
    catalog,
    allowedOrigins: config.ALLOWED_ORIGINS,
    password: config.APP_PASSWORD,
    loginSessions: db.models.LoginSession,
    accounts: { mode: config.AUTH_MODE, models: db.models, sso: ssoFromEnv(config, secret) },
    shareLinks: db.models.ShareLink,
    quotas: accountQuotas?.ledger ?? new QuotaLedger(db.models.QuotaUsage, quotaFromEnv(config), undefined, log),
    ...(accountQuotas ? { accountQuotas } : {}),
    agentModels: db.models,
    usageModels: db.models,
    operatorAgents: definitions,
    apiTokens: db.models.ApiToken,
    notifications: {
      models: db.models,
      vapid: {
        publicKey: config.VAPID_PUBLIC_KEY,
        privateKey: config.VAPID_PRIVATE_KEY,
        subject: vapidSubject(config.VAPID_SUBJECT, config.PUBLIC_URL),
      },
    },
    ...(config.A2A_SERVER_ENABLED
      ? {
          a2aServer: {
            tasks: db.models.A2ATask,
            skills: listedSkills(config.A2A_SERVER_SKILLS, definitions),
            ...(config.PUBLIC_URL ? { publicUrl: config.PUBLIC_URL } : {}),
          },
        }
      : {}),
    pageHandler: (req, res) => handle(req, res),
    upgradeHandler: dev ? nextApp.getUpgradeHandler() : undefined,
    dbUp: db.isUp,
    dbRestarting: db.embeddedRestarting,
    metrics,
    ...(config.METRICS_TOKEN ? { metricsToken: config.METRICS_TOKEN } : {}),
    log,
    cluster,
    instanceId,
  });

  await new Promise<void>((resolve) => app.httpServer.listen(config.PORT, config.HOST, resolve));
  const address = app.httpServer.address();
  const port = typeof address === "object" && address ? address.port : config.PORT;
  log.info(
    `Delegate is ready at http://${config.HOST === "0.0.0.0" ? "localhost" : config.HOST}:${port} — model: ${(typeof appInfo === "function" ? await appInfo() : appInfo).modelLabel}`,
  );

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info(`${signal}: stopping…`);
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    // Turns running here end (viewers see them end), everything is stored and leases released first.
    const { ended } = await app.close();
    if (ended.length > 0) log.warn(`${signal}: ended ${ended.length} running turn(s) before stopping`, { ended });
    else log.info(`${signal}: no turn was running`);
    await mcp?.close();
    await db.close();
    // Last, once every turn has ended and its spans with it: the spans still queued are exported.
    await telemetry?.shutdown().catch((error: unknown) => log.warn("could not flush the last traces", { error: String(error) }));
    process.exit(0);
  };
  process.on("SIGINT", () => void stop("SIGINT"));
  process.on("SIGTERM", () => void stop("SIGTERM"));
}

if (existsSync(".env")) loadEnvFile(".env");
// Made before the configuration is read, so that a configuration that does not parse is reported in the log's format too.
const log = loggerFromEnv();
if (log.format === "json") routeProcessOutput(log);

main(log).catch((error: unknown) => {
  // A configuration mistake is the person's to fix: its message says what; a stack would only bury it.
  const known =
    error instanceof EnvError ||
    error instanceof SubagentConfigError ||
    error instanceof McpConfigError ||
    error instanceof EndpointsConfigError;
  if (known) log.error(error.message);
  else log.error("Delegate could not start", error instanceof Error ? { err: error } : { error: String(error) });
  process.exit(1);
});

/** Single sign-on when an OpenID provider is configured (OIDC_*); its attempt cookies are signed with the app's secret. */
function ssoFromEnv(config: Env, secret: string): { label: string; oidc: OidcClient } | null {
  const oidc = oidcFromEnv(config, createSigner(secret));
  return oidc ? { label: config.OIDC_LABEL, oidc } : null;
}
