import type { TestProject } from "vitest/node";
import { startMongoJavaServer } from "@/server/db/mongo-java-server";
import { startFerretDb } from "./ferretdb";

/**
 * One database server for the whole unit/integration run: the real one at MONGODB_URI
 * when set; FerretDB on SQLite with TEST_DB=ferretdb (the second-database run of
 * scripts/test-all.sh); else the project's MongoDB-wire-compatible server in memory. Each
 * test file uses its own database name (see `testDatabaseUri`), so files never see each
 * other's data.
 */
let running: { uri: string; stop(): Promise<void> } | undefined;

export async function setup(project: TestProject): Promise<void> {
  let uri = process.env.MONGODB_URI;
  const server: DatabaseServer = uri ? "external" : process.env.TEST_DB === "ferretdb" ? "ferretdb" : "mongo-java-server";
  if (!uri) {
    running = server === "ferretdb" ? await startFerretDb() : await startMongoJavaServer();
    uri = running.uri;
  }
  project.provide("mongoUri", uri);
  project.provide("databaseServer", server);
  // One seed per run for every property test: new each run, printed so a failure can be
  // replayed exactly (FC_SEED=<seed> npm test), fixed only when FC_SEED is given.
  const fcSeed = process.env.FC_SEED ? Number(process.env.FC_SEED) : Math.floor(Math.random() * 2 ** 31);
  project.provide("fcSeed", fcSeed);
  console.info(`fast-check seed ${fcSeed} (replay a failure with FC_SEED=${fcSeed})`);
}

export async function teardown(): Promise<void> {
  await running?.stop();
}

/** Which server `mongoUri` is: a test of a fallback checks the branch that server takes. */
export type DatabaseServer = "mongo-java-server" | "ferretdb" | "external";

declare module "vitest" {
  export interface ProvidedContext {
    mongoUri: string;
    databaseServer: DatabaseServer;
    fcSeed: number;
  }
}
