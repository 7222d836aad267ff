import { randomUUID } from "node:crypto";
import mongoose, { type Connection } from "mongoose";
import { createModels, initModels, type Models } from "@/models";
import { mongoStore, type ChatStore } from "@/server/data/store";
import { startMongoJavaServer, type RunningMongo } from "@/server/db/mongo-java-server";

/**
 * The benchmark's database: MONGODB_URI when set, else the project's own
 * MongoDB-wire-compatible server started here (and stopped at the end). A fresh database
 * name per run, dropped at the end. Command monitoring is on so that the reload
 * benchmark can count the round trips one request makes.
 */
export interface BenchDatabase {
  /** URI including the database name, for the app process started by the browser part. */
  uri: string;
  /** "mongo-java-server" or "MONGODB_URI". */
  kind: string;
  /** The connection (command monitoring on), for benchmarks that meter what is written. */
  connection: Connection;
  models: Models;
  store: ChatStore;
  /** Counts commands sent over this process's connection while `fn` runs. */
  countCommands<T>(fn: () => Promise<T>): Promise<{ result: T; commands: Record<string, number> }>;
  close(): Promise<void>;
}

export async function openBenchDatabase(options: { baseUri?: string } = {}): Promise<BenchDatabase> {
  let server: RunningMongo | undefined;
  let base = options.baseUri ?? process.env.MONGODB_URI;
  if (!base) {
    server = await startMongoJavaServer();
    base = server.uri;
  }
  const url = new URL(base);
  url.pathname = `/bench_${randomUUID().slice(0, 8)}`;
  const uri = url.toString();
  const connection = await mongoose.createConnection(uri, { serverSelectionTimeoutMS: 10_000, monitorCommands: true }).asPromise();
  const models = createModels(connection);
  await initModels(models);

  let counting: Record<string, number> | undefined;
  connection.getClient().on("commandStarted", (event) => {
    if (counting) counting[event.commandName] = (counting[event.commandName] ?? 0) + 1;
  });

  return {
    uri,
    kind: server ? "mongo-java-server" : "MONGODB_URI",
    connection,
    models,
    store: mongoStore(models),
    async countCommands(fn) {
      const commands: Record<string, number> = {};
      counting = commands;
      try {
        return { result: await fn(), commands };
      } finally {
        counting = undefined;
      }
    },
    async close() {
      await connection.dropDatabase().catch(() => undefined);
      await connection.close();
      await server?.stop();
    },
  };
}
