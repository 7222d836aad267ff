import { randomUUID } from "node:crypto";
import mongoose, { type Connection } from "mongoose";
import { inject } from "vitest";
import { createModels, initModels, type Models } from "@/models";
import { mongoStore, type ChatStore } from "@/server/data/store";
import { openConnection } from "@/server/db/connect";

/** A fresh database on the shared test server, unique to the calling test file. */
export function testDatabaseUri(label: string): string {
  const base = new URL(inject("mongoUri"));
  base.pathname = `/${label.replace(/[^a-z0-9]/gi, "_").slice(0, 20)}_${randomUUID().slice(0, 8)}`;
  return base.toString();
}

export interface TestDatabase {
  connection: Connection;
  models: Models;
  store: ChatStore;
  /** Drops the database and closes the connection. */
  close(): Promise<void>;
}

/**
 * A fresh test database (or `uri`'s), with the app's models and store on a connection of
 * its own; `monitorCommands` lets a test count what the driver sends (see write-meter.ts).
 */
export async function openTestDatabase(label: string, options: { uri?: string; monitorCommands?: boolean } = {}): Promise<TestDatabase> {
  const uri = options.uri ?? testDatabaseUri(label);
  const connection = options.monitorCommands
    ? await mongoose.createConnection(uri, { serverSelectionTimeoutMS: 5_000, monitorCommands: true }).asPromise()
    : await openConnection(uri);
  const models = createModels(connection);
  await initModels(models);
  return {
    connection,
    models,
    store: mongoStore(models),
    async close() {
      await connection.dropDatabase().catch(() => undefined);
      await connection.close();
    },
  };
}
