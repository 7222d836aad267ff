import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import type { Logger } from "@/lib/log";
import { javaAvailable, startMongoJavaServer, type RunningMongo } from "./mongo-java-server";

/**
 * The embedded database used when no MONGODB_URI is set, with data kept under DATA_DIR:
 * - `mongod`: a real MongoDB through mongodb-memory-server, with a persistent db path
 *   (it downloads a mongod binary on first use where the internet is reachable);
 * - `mongo-java-server`: the project's MongoDB-wire-compatible server with its H2 file
 *   backend (needs Java 17+; the same server the tests use).
 * `auto` takes a real mongod when one is already on the machine, else the Java server
 * when Java is installed (no download attempt that would fail offline), else mongod
 * with a download.
 */
export type EmbeddedEngine = "mongod" | "mongo-java-server";

export interface RunningEmbedded {
  engine: EmbeddedEngine;
  uri: string;
  /** The database process now (a supervised one is replaced when it dies). */
  pid(): number | undefined;
  /** Its process died and is being started again (readiness answers 503 meanwhile). */
  restarting(): boolean;
  stop(): Promise<void>;
}

export function chooseEmbeddedEngine(input: {
  requested: "auto" | EmbeddedEngine;
  mongodOnMachine: boolean;
  javaOnMachine: boolean;
}): EmbeddedEngine {
  if (input.requested !== "auto") return input.requested;
  if (input.mongodOnMachine) return "mongod";
  return input.javaOnMachine ? "mongo-java-server" : "mongod";
}

/** A mongod binary that needs no download: configured, on PATH, or cached by an earlier run. */
export function mongodOnMachine(): boolean {
  // mongodb-memory-server's own setting for a preinstalled binary (read by it, not by lib/env).
  if (process.env.MONGOMS_SYSTEM_BINARY && existsSync(process.env.MONGOMS_SYSTEM_BINARY)) return true;
  const onPath = spawnSync("mongod", ["--version"], { stdio: "ignore" });
  if (!onPath.error && onPath.status === 0) return true;
  const cache = path.join(homedir(), ".cache", "mongodb-binaries");
  return existsSync(cache) && readdirSync(cache).some((f) => f.startsWith("mongod"));
}

export async function startEmbedded(
  dataDir: string,
  requested: "auto" | EmbeddedEngine,
  log?: Pick<Logger, "info" | "warn">,
): Promise<RunningEmbedded> {
  const engine = chooseEmbeddedEngine({
    requested,
    mongodOnMachine: requested === "auto" && mongodOnMachine(),
    javaOnMachine: javaAvailable(),
  });
  if (engine === "mongo-java-server") return superviseJavaServer(path.resolve(dataDir, "db", "delegate.mv.db"), log);
  const dbPath = path.resolve(dataDir, "mongod");
  mkdirSync(dbPath, { recursive: true });
  const { MongoMemoryServer } = await import("mongodb-memory-server-core");
  const server = await MongoMemoryServer.create({ instance: { dbPath, storageEngine: "wiredTiger", ip: "127.0.0.1" } });
  return {
    engine,
    uri: server.getUri(),
    pid: () => server.instanceInfo?.instance.mongodProcess?.pid,
    // mongodb-memory-server does not restart a mongod that died: the ping tells readiness.
    restarting: () => false,
    // Keep the files: this is the user's data, not a scratch database.
    stop: async () => void (await server.stop({ doCleanup: false })),
  };
}

/**
 * The Java server as the app's own database: if its process dies, it is started again on
 * the same port and file (waiting 1 s, 2 s, … 15 s between tries), and the driver finds it
 * there. Its writes are committed before they are acknowledged (MongoLauncher.java), so
 * nothing it acknowledged is lost with the process.
 */
async function superviseJavaServer(h2File: string, log?: Pick<Logger, "info" | "warn">): Promise<RunningEmbedded> {
  let current = await startMongoJavaServer({ h2File });
  const { port, uri } = current;
  let stopping = false;
  let restarting = false;
  const watch = (server: RunningMongo) =>
    void server.exited.then(async (code) => {
      if (stopping) return;
      restarting = true;
      log?.warn(`The embedded database stopped (exit code ${code}); restarting it…`);
      for (let attempt = 0; !stopping; attempt++) {
        try {
          current = await startMongoJavaServer({ h2File, port });
          restarting = false;
          log?.info("The embedded database is back.");
          watch(current);
          return;
        } catch (error) {
          log?.warn(`The embedded database did not restart (${(error as Error).message}); trying again…`);
          await new Promise((r) => setTimeout(r, Math.min(1_000 * 2 ** attempt, 15_000)));
        }
      }
    });
  watch(current);
  return {
    engine: "mongo-java-server",
    uri,
    pid: () => current.pid,
    restarting: () => restarting,
    async stop() {
      stopping = true;
      await current.stop();
    },
  };
}
