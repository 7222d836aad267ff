import type { TestProject } from "vitest/node";
import { startMongoJavaServer, type RunningMongo } from "@/server/db/mongo-java-server";

/**
 * One database server for the whole unit/integration run: the real one at MONGODB_URI
 * when set, else the project's MongoDB-wire-compatible server in memory. Each test file
 * uses its own database name (see `testDatabaseUri`), so files never see each other's data.
 */
let running: RunningMongo | undefined;

export async function setup(project: TestProject): Promise<void> {
  let uri = process.env.MONGODB_URI;
  if (!uri) {
    running = await startMongoJavaServer();
    uri = running.uri;
  }
  project.provide("mongoUri", uri);
}

export async function teardown(): Promise<void> {
  await running?.stop();
}

declare module "vitest" {
  export interface ProvidedContext {
    mongoUri: string;
  }
}
