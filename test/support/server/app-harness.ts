import type { Connection } from "mongoose";
import { createAgentRuntime, type AgentRuntimeDeps } from "@/lib/agent/runtime";
import { BUILTIN_DEFINITIONS } from "@/lib/agent/definitions";
import type { AuthMode } from "@/lib/contracts";
import type { ChatModel } from "@/lib/model/types";
import { createWorkspaceTools } from "@/lib/tools";
import type { Models } from "@/models";
import type { ChatStore } from "@/server/data/store";
import type { Throttle } from "@/server/accounts/login-throttle";
import type { WriteOutboxOptions } from "@/server/data/write-outbox";
import type { AppOptions } from "@/server/app";
import type { TurnRunner } from "@/server/sessions/turn-runner";
import { openTestDatabase } from "./database";
import { recordEvents, request, startLiveApp, type LiveApp, type LiveClient } from "./live-app";
import type { OidcClient } from "@/server/accounts/oidc";
import { Cluster, type ClusterOptions } from "@/server/cluster/cluster";
import { mongoLeases } from "@/server/cluster/lease";
import type { CardSkill } from "@/lib/a2a-server/agent-card";
import { AttachmentStore, type AttachmentLimits } from "@/server/attachments/attachment-store";

/**
 * The real server for integration tests (see live-app.ts) on a fresh database of the
 * test database server, with the real agent runtime driving whatever model the test gives.
 */
export type TestClient = LiveClient;
export interface Harness extends LiveApp {
  /** The test database: its connection, models and the store the app was given. */
  connection: Connection;
  models: Models;
  store: ChatStore;
  /**
   * Stops this app process and starts a fresh one on the same database, as a server
   * restart does: nothing survives in memory; the new app knows only what MongoDB holds.
   */
  restart(): Promise<Harness>;
}
export { recordEvents, request };

export function runtimeWith(model: ChatModel, overrides: Partial<AgentRuntimeDeps> = {}): TurnRunner {
  return createAgentRuntime({
    model,
    tools: createWorkspaceTools(),
    definitions: [...BUILTIN_DEFINITIONS],
    workspaceDir: process.cwd() + "/workspace",
    limits: {
      maxSpawnDepth: 3,
      maxChildrenPerAgent: 5,
      maxResultTokens: 4000,
      subagentTimeoutMs: 30_000,
      maxSteps: 10,
      contextTokens: 100_000,
      resultFooter: true,
      turnTimeoutMs: 600_000,
    },
    ...overrides,
  });
}

export async function startHarness(
  label: string,
  options: {
    runner: TurnRunner;
    mongoUri?: string;
    /** Accounts on: the app gets this mode and the test database's account collections. */ authMode?: AuthMode;
    /** The sign-in and sign-up throttle in the account modes (tests all come from one address). */ accountThrottle?: Throttle;
    /** Single sign-on in the account modes (server/accounts/oidc.ts). */ sso?: { label: string; oidc: OidcClient };
    /** Scale-out: this app joins a cluster (a real Redis) with leases on this harness's database; see also cluster-apps.ts. */ clusterWith?: ClusterOptions;
    /** The attachments' limits instead of ATTACHMENT_MAX_BYTES and ATTACHMENTS_MAX_CHAT_BYTES. */ attachmentLimits?: AttachmentLimits;
    /** Delegate as an A2A server on this database (its tasks' collection), with these skills besides the master. */ a2a?: {
      skills?: CardSkill[];
      heartbeatMs?: number;
    };
    /** Browser notifications on this database's collections, with these settings. */ notify?: Omit<
      NonNullable<AppOptions["notifications"]>,
      "models"
    >;
    /** Every chat's write outbox gets these (a shorter backoff, a log to watch its retries). */ outbox?: Pick<
      WriteOutboxOptions,
      "retry" | "log"
    >;
  } & Partial<AppOptions>,
): Promise<Harness> {
  const db = await openTestDatabase(label, { uri: options.mongoUri });
  const { connection, models } = db;
  const outbox = options.outbox;
  const withOutbox: typeof db.store = outbox ? { ...db.store, eventWriter: (o) => db.store.eventWriter({ ...o, ...outbox }) } : db.store;
  const limits = options.attachmentLimits;
  const store: typeof db.store = limits ? { ...withOutbox, attachments: new AttachmentStore(models, limits) } : withOutbox;
  const start = async (): Promise<Harness> => {
    const accounts = options.authMode
      ? {
          mode: options.authMode,
          models,
          throttle: options.accountThrottle,
          creationThrottle: options.accountThrottle,
          sso: options.sso ?? null,
        }
      : options.accounts;
    const cluster = options.clusterWith
      ? await Cluster.connect(options.clusterWith, { leases: mongoLeases(models), store })
      : options.cluster;
    const live = await startLiveApp({
      flushMs: 20,
      store,
      shareLinks: models.ShareLink,
      loginSessions: models.LoginSession,
      agentModels: models,
      usageModels: models,
      apiTokens: models.ApiToken,
      ...(options.a2a
        ? { a2aServer: { tasks: models.A2ATask, skills: options.a2a.skills ?? [], heartbeatMs: options.a2a.heartbeatMs } }
        : {}),
      ...(options.notify ? { notifications: { models, ...options.notify } } : {}),
      ...options,
      accounts,
      cluster,
      ...(cluster ? { instanceId: cluster.instanceId } : {}),
    });
    return {
      ...live,
      connection,
      models,
      store,
      async restart() {
        await live.close();
        return start();
      },
      async close() {
        await live.close();
        await db.close();
      },
    };
  };
  return start();
}

/** A new chat (for a new person unless `cookie` names one): the cookie, a connected socket and the session id. */
export async function openSession(harness: Harness, cookie?: string): Promise<{ cookie: string; socket: TestClient; sessionId: string }> {
  cookie ??= await harness.newCookie();
  const socket = await harness.client(cookie);
  const created = await request(socket, "session:create", {});
  if (!created.ok) throw new Error(created.message);
  return { cookie, socket, sessionId: created.data.sessionId };
}

export async function waitFor(predicate: () => boolean, timeoutMs = 10_000, what = "condition"): Promise<void> {
  const start = Date.now();
  while (!predicate()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
