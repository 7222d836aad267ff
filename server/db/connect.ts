import path from "node:path";
import mongoose from "mongoose";
import type { Env } from "@/lib/env";
import { javaAvailable, startMongoJavaServer, type RunningMongo } from "./mongo-java-server";

/**
 * Connects mongoose. With MONGODB_URI: that server. Without: an embedded database whose
 * data survives restarts under DATA_DIR — the project's MongoDB-wire-compatible server
 * with its H2 file backend (needs Java 17+; its jars come from Maven Central once).
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
  env: Pick<Env, "MONGODB_URI" | "DATA_DIR">,
  log: { info(msg: string): void; warn(msg: string): void },
): Promise<Database> {
  let embedded: RunningMongo | undefined;
  let uri = env.MONGODB_URI;
  if (!uri) {
    if (!javaAvailable()) {
      throw new Error(
        "No MONGODB_URI is set and Java is not installed, so the embedded database cannot start. " +
          "Set MONGODB_URI to a MongoDB server (e.g. docker compose up), or install Java 17+ and Maven.",
      );
    }
    const file = path.resolve(env.DATA_DIR, "db", "delegate.mv.db");
    log.info(`Starting the embedded database (data in ${file})…`);
    embedded = await startMongoJavaServer({ h2File: file });
    uri = `${embedded.uri}${DEFAULT_DB_NAME}`;
  }
  await connectWithRetry(uri, log);
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
