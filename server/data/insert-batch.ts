import type { Schema } from "mongoose";
import type { Models } from "@/models";
import { bsonSize, STORABLE_DOCUMENT_BYTES } from "./document-size";
import type { ToolCallDocument, ToolOutputDocument } from "./tool-call-records";
import { refusedInBulk, WritesRefused, type Write } from "./write-outbox";

/**
 * Consecutive inserts of a chat's tool-call records (and of long outputs' chunks), sent
 * as one write: an `insertMany` per collection instead of a mongoose document and a round
 * trip each. A step of a thousand calls was a thousand writes on the relay's event loop;
 * an import replays twenty thousand.
 *
 * A batch takes records until its write starts (its writer also stops adding once a
 * write is queued behind it, so the chat's writes keep the order of its events), and
 * until it holds MAX_CALLS records or MAX_CHARS characters, so that no one write is a
 * long block on the event loop. A record still in a batch not sent can be amended in
 * place: a call's result then lands with the call, not as an update after it.
 */

/** Records per batch: sending 500 small ones costs the event loop about 5 ms, far below a stall (see docs/performance.md). */
const MAX_CALLS = 500;
/** Characters per batch, about: beyond it a batch takes no more records (a record may be up to a document in size). */
const MAX_CHARS = 2_000_000;

export class InsertBatch {
  private readonly calls = new Map<string, ToolCallDocument>();
  private readonly outputs: ToolOutputDocument[] = [];
  private chars = 0;
  private repeated = 0;

  /** `started`: called as its write starts, when it can take no more records nor amendments. */
  constructor(
    private readonly models: Models,
    private readonly started: () => void,
  ) {}

  /** How many documents it holds. */
  get size(): number {
    return this.calls.size + this.repeated + this.outputs.length;
  }

  get full(): boolean {
    return this.calls.size >= MAX_CALLS || this.chars >= MAX_CHARS;
  }

  /**
   * Adds a call's record. A call already in the batch (its event repeated) keeps its
   * first record, as a second insert would; the copy still weighs as one (`size`).
   */
  addCall(record: ToolCallDocument): void {
    if (this.calls.has(record._id)) {
      this.repeated++;
      return;
    }
    this.calls.set(record._id, record);
    this.chars += record.parameters.length + record.name.length;
  }

  /** The record of call `id` if it waits here, to amend before it is sent. */
  call(id: string): ToolCallDocument | undefined {
    return this.calls.get(id);
  }

  addOutput(chunk: ToolOutputDocument): void {
    this.outputs.push(chunk);
    this.chars += chunk.data.length;
  }

  /**
   * The batch's write: planned when it starts (the records as amended by then, each
   * checked as mongoose would have checked it and for size), resent as is on retry.
   * Duplicates on a retry are records that landed before a lost reply; a record refused
   * (too large, invalid, or by the database) does not stop the others and is counted as
   * a write given up (`WritesRefused`).
   */
  readonly write: Write = () => {
    this.attempt ??= this.plan();
    return this.attempt();
  };

  private attempt: (() => Promise<void>) | undefined;

  private plan(): () => Promise<void> {
    this.started();
    const refusals: string[] = [];
    const calls = accepted([...this.calls.values()], this.models.ToolCall.schema, "a tool call", refusals);
    const outputs = accepted(this.outputs, this.models.ToolOutput.schema, "a tool output chunk", refusals);
    // Mongoose's collections, not its models: no document is built, and while the
    // connection is down the insert waits in mongoose's buffer as other writes do.
    const { ToolCall, ToolOutput } = this.models;
    return async () => {
      let refused = refusals.length;
      let reason = refusals[0] ?? "";
      for (const [collection, docs] of [
        [ToolCall.collection, calls],
        [ToolOutput.collection, outputs],
      ] as const) {
        if (docs.length === 0) continue;
        try {
          await collection.insertMany(docs as never[], { ordered: false });
        } catch (error) {
          const bulk = refusedInBulk(error);
          if (!bulk) throw error;
          refused += bulk.count;
          reason ||= bulk.reason;
        }
      }
      if (refused > 0) throw new WritesRefused(refused, reason);
    };
  }
}

/** The documents that may be sent; why each other one may not goes to `refusals`. */
function accepted<T extends object>(docs: readonly T[], schema: Schema, what: string, refusals: string[]): T[] {
  const sendable: T[] = [];
  for (const doc of docs) {
    const bytes = bsonSize(doc);
    const invalid =
      bytes > STORABLE_DOCUMENT_BYTES
        ? `${bytes} bytes as BSON, over the ${STORABLE_DOCUMENT_BYTES} a document may hold`
        : schemaRefusal(schema, doc);
    if (invalid) refusals.push(`${what}: ${invalid}`);
    else sendable.push(doc);
  }
  return sendable;
}

/**
 * Why mongoose's validation would refuse `doc`, by the schema's own rules: a required
 * field missing (a required string may not be empty) or a value outside its `enum`.
 * Values are not cast: the writer builds them of the stored types.
 */
export function schemaRefusal(schema: Schema, doc: object): string | undefined {
  for (const [path, type] of Object.entries(schema.paths)) {
    const value = (doc as Record<string, unknown>)[path];
    const present = type.instance === "String" ? typeof value === "string" && value.length > 0 : value !== undefined && value !== null;
    if (type.isRequired && !present) return `${path} is required`;
    if (value === undefined || value === null) continue;
    const allowed = type.options.enum;
    if (Array.isArray(allowed) && !allowed.includes(value)) return `${path} may not be ${JSON.stringify(value)}`;
    const nested = (type as { schema?: Schema }).schema;
    const inner = nested && typeof value === "object" ? schemaRefusal(nested, value) : undefined;
    if (inner) return `${path}.${inner}`;
  }
  return undefined;
}
