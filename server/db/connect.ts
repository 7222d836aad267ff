import mongoose from "mongoose";
import type { Env } from "@/lib/env";
import { initModels } from "@/models";
import { startEmbedded, type RunningEmbedded } from "./embedded";

/**
 * Connects mongoose. With MONGODB_URI: that server. Without: an embedded database whose
 * data survives restarts under DATA_DIR (see embedded.ts for which one).
 * A database that is down at start is retried until it answers; the caller logs progress.
 */
export interface Database {
  uri: string;
  embedded: boolean;
  isUp(): boolean;
  close(): Promise<void>;
}

const DEFAULT_DB_NAME = "delegate";

export async function connectDatabase(
  env: Pick<Env, "MONGODB_URI" | "DATA_DIR"> & Partial<Pick<Env, "EMBEDDED_DB">>,
  log: { info(msg: string): void; warn(msg: string): void },
): Promise<Database> {
  let embedded: RunningEmbedded | undefined;
  let uri = env.MONGODB_URI;
  if (!uri) {
    log.info(`No MONGODB_URI: starting the embedded database (data in ${env.DATA_DIR})…`);
    try {
      embedded = await startEmbedded(env.DATA_DIR, env.EMBEDDED_DB ?? "auto");
    } catch (error) {
      throw new Error(
        `The embedded database could not start (${(error as Error).message}). ` +
          "Set MONGODB_URI to a MongoDB server (e.g. docker compose up), or install Java 17+ and Maven.",
      );
    }
    log.info(`Embedded database: ${embedded.engine}`);
    uri = `${embedded.uri}${DEFAULT_DB_NAME}`;
  }
  await connectWithRetry(uri, log);
  await initModels();
  return {
    uri,
    embedded: Boolean(embedded),
    isUp: () => mongoose.connection.readyState === 1,
    async close() {
      await mongoose.disconnect();
      await embedded?.stop();
    },
  };
}

async function connectWithRetry(uri: string, log: { info(msg: string): void; warn(msg: string): void }): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await mongoose.connect(uri, { serverSelectionTimeoutMS: 5_000 });
      return;
    } catch (error) {
      const wait = Math.min(1_000 * 2 ** Math.min(attempt - 1, 4), 15_000);
      log.warn(`The database at ${redact(uri)} is unreachable (${(error as Error).message}); retrying in ${wait / 1000} s…`);
      await new Promise((r) => setTimeout(r, wait));
    }
  }
}

/** Never print credentials. */
export function redact(uri: string): string {
  return uri.replace(/\/\/[^@/]*@/, "//***@");
}
