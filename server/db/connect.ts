import mongoose, { type Connection } from "mongoose";
import pRetry from "p-retry";
import type { Env } from "@/lib/env";
import { createModels, initModels, type Models } from "@/models";
import { startEmbedded, type RunningEmbedded } from "./embedded";
import type { Logger } from "@/lib/log";

/**
 * Opens a connection of its own (not mongoose's global one) and the models on it. With
 * MONGODB_URI: that server. Without: an embedded database whose data survives restarts
 * under DATA_DIR (see embedded.ts for which one). A database that is down at start is
 * retried until it answers; the caller logs progress.
 */
export interface Database {
  uri: string;
  embedded: boolean;
  /** The embedded database's process now, when there is one (fault tests kill it). */
  embeddedPid(): number | undefined;
  /** The embedded database's process died and is being started again; false for MONGODB_URI. */
  embeddedRestarting(): boolean;
  connection: Connection;
  models: Models;
  /** Answers a ping within HEALTH_PING_MS: a paused or hung server is down, not just a closed socket. */
  isUp(): Promise<boolean>;
  close(): Promise<void>;
}

const DEFAULT_DB_NAME = "delegate";

export async function connectDatabase(
  env: Pick<Env, "MONGODB_URI" | "DATA_DIR"> & Partial<Pick<Env, "EMBEDDED_DB">>,
  log: Pick<Logger, "info" | "warn">,
): Promise<Database> {
  let embedded: RunningEmbedded | undefined;
  let uri = env.MONGODB_URI;
  if (!uri) {
    log.info(`No MONGODB_URI: starting the embedded database (data in ${env.DATA_DIR})…`);
    try {
      embedded = await startEmbedded(env.DATA_DIR, env.EMBEDDED_DB ?? "auto", log);
    } catch (error) {
      throw new Error(
        `The embedded database could not start (${(error as Error).message}). ` +
          "Set MONGODB_URI to a MongoDB server (e.g. docker compose up), or install Java 17+ and Maven.",
      );
    }
    log.info(`Embedded database: ${embedded.engine}`);
    uri = `${embedded.uri}${DEFAULT_DB_NAME}`;
  }
  const connection = await connectWithRetry(uri, log);
  const models = createModels(connection);
  await initModels(models);
  return {
    uri,
    embedded: Boolean(embedded),
    embeddedPid: () => embedded?.pid(),
    embeddedRestarting: () => embedded?.restarting() ?? false,
    connection,
    models,
    isUp: () => answersPing(connection),
    async close() {
      await connection.close();
      await embedded?.stop();
    },
  };
}

const FIRST_RETRY_WAIT_MS = 1_000;
const MAX_RETRY_WAIT_MS = 15_000;

/** Retries forever: 1 s, 2 s, 4 s, 8 s, then every 15 s, saying so each time. */
async function connectWithRetry(uri: string, log: Pick<Logger, "warn">): Promise<Connection> {
  return pRetry(() => openConnection(uri), {
    retries: Number.POSITIVE_INFINITY,
    minTimeout: FIRST_RETRY_WAIT_MS,
    factor: 2,
    maxTimeout: MAX_RETRY_WAIT_MS,
    onFailedAttempt: ({ error, retriesConsumed }) => {
      // The same wait p-retry is about to take (minTimeout × factor^retriesConsumed, capped).
      const wait = Math.min(FIRST_RETRY_WAIT_MS * 2 ** retriesConsumed, MAX_RETRY_WAIT_MS);
      log.warn(`The database at ${redact(uri)} is unreachable (${error.message}); retrying in ${wait / 1000} s…`);
    },
  });
}

const HEALTH_PING_MS = 2_000;

/** Whether the database answers a ping within HEALTH_PING_MS (the health checks and readiness read it). */
export async function answersPing(connection: Connection): Promise<boolean> {
  if (connection.readyState !== 1 || !connection.db) return false;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), HEALTH_PING_MS)));
  const ping = connection.db
    .admin()
    .ping()
    .then(
      () => true,
      () => false,
    );
  try {
    return await Promise.race([ping, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** One attempt: a new connection, closed again if the server does not answer. */
export async function openConnection(uri: string): Promise<Connection> {
  const connection = mongoose.createConnection(uri, { serverSelectionTimeoutMS: 5_000 });
  try {
    return await connection.asPromise();
  } catch (error) {
    await connection.close().catch(() => undefined);
    throw error;
  }
}

/** Never print credentials. */
export function redact(uri: string): string {
  return uri.replace(/\/\/[^@/]*@/, "//***@");
}
