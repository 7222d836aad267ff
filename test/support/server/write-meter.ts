import mongoose, { type Connection } from "mongoose";
import type { Models } from "@/models";

/**
 * Bytes written to MongoDB, counted from the driver's command monitoring (the connection
 * must be opened with `monitorCommands: true`): the BSON size of every document inserted
 * and of every update's filter and update document (what the database is asked to
 * write), by collection. Command envelopes (session ids, cluster time) are left out.
 */
export interface WriteMeter {
  /** Bytes since the meter started or was last reset, over all collections. */
  total(): number;
  byCollection(): Record<string, number>;
  reset(): void;
  stop(): void;
}

type WriteCommand = {
  insert?: string;
  update?: string;
  delete?: string;
  documents?: object[];
  updates?: { q: object; u: object | object[] }[];
  deletes?: { q: object }[];
};

const size = (doc: object) => mongoose.mongo.BSON.calculateObjectSize(doc as mongoose.mongo.Document);

export function meterWrites(connection: Connection): WriteMeter {
  let counts: Record<string, number> = {};
  const listener = (event: { commandName: string; command: mongoose.mongo.Document }) => {
    const command = event.command as WriteCommand;
    let bytes = 0;
    if (event.commandName === "insert") for (const doc of command.documents ?? []) bytes += size(doc);
    else if (event.commandName === "update") for (const u of command.updates ?? []) bytes += size(u.q) + size(u.u as object);
    else if (event.commandName === "delete") for (const d of command.deletes ?? []) bytes += size(d.q);
    else return;
    const collection = command.insert ?? command.update ?? command.delete ?? "?";
    counts[collection] = (counts[collection] ?? 0) + bytes;
  };
  const client = connection.getClient();
  client.on("commandStarted", listener);
  return {
    total: () => Object.values(counts).reduce((a, b) => a + b, 0),
    byCollection: () => ({ ...counts }),
    reset: () => {
      counts = {};
    },
    stop: () => client.off("commandStarted", listener),
  };
}

/** The BSON size of everything one session stores: its session document, turns, runs, calls and chunks. */
export async function storedBytes(models: Models, sessionId: string): Promise<number> {
  let bytes = 0;
  const { Session, Turn, SubagentRun, ToolCall, ToolOutput, TextChunk, ModelCall, ModelBlob } = models;
  for (const doc of await Session.find({ _id: sessionId }).lean()) bytes += size(doc);
  // The model-call records (the audit of each request) are stored with the chat too.
  for (const model of [Turn, SubagentRun, ToolCall, ToolOutput, TextChunk, ModelCall, ModelBlob] as unknown as (typeof Turn)[]) {
    for (const doc of await (model as typeof Turn).find({ sessionId }).lean()) bytes += size(doc);
  }
  return bytes;
}

/** Commands the driver sends on one collection, by name ("insert", "update"), from its command monitoring. */
export function countCommands(connection: Connection, collection: string): { counts: Record<string, number>; stop(): void } {
  const counts: Record<string, number> = {};
  const listener = (event: { commandName: string; command: mongoose.mongo.Document }) => {
    if (event.command[event.commandName] === collection) counts[event.commandName] = (counts[event.commandName] ?? 0) + 1;
  };
  const client = connection.getClient();
  client.on("commandStarted", listener);
  return { counts, stop: () => client.off("commandStarted", listener) };
}
