import { createHash } from "node:crypto";
import type { ModelCallRecord, ModelCallSummary } from "@/lib/contracts";
import type { Logger } from "@/lib/log";
import type { Models } from "@/models";
import { decodeBlob, encodeBlob } from "./blob-codec";
import { unreachable } from "./document-size";
import { fitModelCall } from "./model-call-fit";

/**
 * Stores a session's model-call records (see models/model-call.ts): each message and tool
 * list once, under the hash of its content (compressed: blob-codec.ts), then the call
 * naming them in order. Writes
 * are upserts, so a write retried after a lost reply stores nothing twice; they run one
 * at a time, in the order the calls ended. A record too large for a document is stored
 * with its large parts cut (model-call-fit.ts), or dropped when even that does not fit; a
 * write the database refuses is given up at once: neither blocks the records behind it.
 * Only an outage is retried, with backoff, until the database is back. What waits is bounded: past `maxPendingBytes` the oldest records are
 * dropped, with a warning, rather than letting an outage grow the process without limit.
 */

export interface ModelCallLogOptions {
  models: Models;
  sessionId: string;
  log?: Pick<Logger, "warn" | "error">;
  maxPendingBytes?: number;
  retryDelayMs?: { base: number; max: number };
}

interface Pending {
  record: ModelCallRecord;
  bytes: number;
}

/** How many blob ids a log remembers as written (consecutive requests share most of them). */
const KNOWN_LIMIT = 20_000;
/** Blobs per write: a few milliseconds of the event loop each. */
const BLOB_BATCH = 250;

export const blobId = (sessionId: string, json: string) =>
  `${sessionId}:${createHash("sha256").update(json).digest("base64url").slice(0, 32)}`;

export class ModelCallLog {
  private readonly pending: Pending[] = [];
  private pendingBytes = 0;
  private readonly known = new Set<string>();
  private running: Promise<void> | null = null;
  private failures = 0;
  private dropped = 0;
  private refused = 0;
  private readonly maxPendingBytes: number;
  private readonly delay: { base: number; max: number };

  constructor(private readonly options: ModelCallLogOptions) {
    this.maxPendingBytes = options.maxPendingBytes ?? 64 * 1024 * 1024;
    this.delay = options.retryDelayMs ?? { base: 250, max: 10_000 };
  }

  /** Queues one record; returns at once (the runtime never waits for the audit log). */
  write(record: ModelCallRecord): void {
    const bytes = JSON.stringify(record.request).length + JSON.stringify(record.response).length;
    this.pending.push({ record, bytes });
    this.pendingBytes += bytes;
    while (this.pendingBytes > this.maxPendingBytes && this.pending.length > 1) {
      const oldest = this.pending.shift()!;
      this.pendingBytes -= oldest.bytes;
      this.dropped++;
      this.options.log?.warn("model-call record dropped: the database has been unreachable too long", {
        sessionId: this.options.sessionId,
        dropped: this.dropped,
      });
    }
    this.running ??= this.run().finally(() => {
      this.running = null;
    });
  }

  /** How many records were not stored whole (cut, dropped or refused): an import checks it is none. */
  get givenUp(): number {
    return this.dropped + this.refused;
  }

  /** Resolves once everything queued so far is stored (or dropped). */
  async drain(): Promise<void> {
    while (this.running) await this.running;
  }

  private async run(): Promise<void> {
    while (this.pending.length > 0) {
      const next = this.pending[0]!;
      const done = () => {
        if (this.pending[0] === next) {
          this.pending.shift();
          this.pendingBytes -= next.bytes;
        }
      };
      try {
        await this.store(next.record);
        this.failures = 0;
        done();
      } catch (error) {
        if (!unreachable(error)) {
          // An answer, not silence: the same write would be refused again.
          this.refused++;
          this.options.log?.error("the database refused a model-call record; giving it up", {
            sessionId: this.options.sessionId,
            callId: next.record.callId,
            error: String(error),
          });
          this.failures = 0;
          done();
          continue;
        }
        this.failures++;
        if (this.failures === 1)
          this.options.log?.warn("could not store a model-call record; retrying", {
            sessionId: this.options.sessionId,
            error: String(error),
          });
        const wait = Math.min(this.delay.max, this.delay.base * 2 ** Math.min(this.failures - 1, 10));
        await new Promise((resolve) => setTimeout(resolve, wait).unref?.());
      }
    }
  }

  private async store(whole: ModelCallRecord): Promise<void> {
    const { sessionId } = this.options;
    const fitted = fitModelCall(whole, sessionId);
    if (!fitted) {
      this.refused++;
      this.options.log?.error("a model-call record is too large to store even cut; dropping it", { sessionId, callId: whole.callId });
      return;
    }
    if (fitted.cut.length > 0) {
      this.refused++;
      this.options.log?.warn("a model-call record is too large for the database; storing it with parts cut", {
        sessionId,
        callId: whole.callId,
        cut: fitted.cut.join(", "),
      });
    }
    const { record } = fitted;
    const { ModelBlob, ModelCall } = this.options.models;
    const blobs = new Map<string, string>();
    const add = (value: unknown) => {
      const json = JSON.stringify(value);
      const id = blobId(sessionId, json);
      blobs.set(id, json);
      return id;
    };
    const messageIds = record.request.messages.map(add);
    const toolsId = record.request.tools.length ? add(record.request.tools) : null;
    const fresh = [...blobs].filter(([id]) => !this.known.has(id));
    // In batches: casting and sending one write of thousands of blobs (a reply of many tool
    // calls makes a request of as many results) would hold the event loop for everyone.
    for (let start = 0; start < fresh.length; start += BLOB_BATCH) {
      const batch = fresh.slice(start, start + BLOB_BATCH);
      const encoded = await Promise.all(batch.map(async ([_id, json]) => ({ _id, blob: await encodeBlob(json) })));
      await ModelBlob.bulkWrite(
        encoded.map(({ _id, blob }) => ({
          updateOne: { filter: { _id }, update: { $setOnInsert: { sessionId, ...blob } }, upsert: true },
        })),
        { ordered: false },
      );
    }
    if (fresh.length > 0) {
      if (this.known.size + fresh.length > KNOWN_LIMIT) this.known.clear();
      for (const [id] of fresh) this.known.add(id);
    }
    const { request: _request, callId, ...rest } = record;
    await ModelCall.updateOne({ _id: callId }, { $setOnInsert: { ...rest, sessionId, messageIds, toolsId } }, { upsert: true });
  }
}

type BlobRow = { _id: string } & Parameters<typeof decodeBlob>[0];

const SUMMARY_FIELDS = { messageIds: 0, toolsId: 0, response: 0, sessionId: 0 } as const;

type CallRow = Omit<ModelCallSummary, "callId"> & {
  _id: string;
  messageIds: string[];
  toolsId: string | null;
  response: ModelCallRecord["response"];
};

function summaryOf(row: Omit<CallRow, "messageIds" | "toolsId" | "response">): ModelCallSummary {
  return {
    callId: row._id,
    turnId: row.turnId,
    runId: row.runId ?? null,
    purpose: row.purpose,
    index: row.index,
    model: row.model,
    modelLabel: row.modelLabel,
    startedAt: row.startedAt,
    endedAt: row.endedAt,
    messageCount: row.messageCount,
    estimatedInputTokens: row.estimatedInputTokens ?? 0,
    toolCount: row.toolCount,
    usage: row.usage ?? null,
    finishReason: row.finishReason ?? null,
    error: row.error ?? null,
  };
}

/** One turn's calls, in the order they started. */
export async function listModelCalls(models: Models, sessionId: string, turnId: string): Promise<ModelCallSummary[]> {
  const rows = await models.ModelCall.find({ sessionId, turnId }, SUMMARY_FIELDS).sort({ startedAt: 1, _id: 1 }).lean<CallRow[]>();
  return rows.map(summaryOf);
}

/** One call with its messages and tools put back in order; null when the session has no such call. */
export async function loadModelCall(models: Models, sessionId: string, callId: string): Promise<ModelCallRecord | null> {
  const row = await models.ModelCall.findOne({ _id: callId, sessionId }).lean<CallRow>();
  if (!row) return null;
  const ids = [...new Set([...row.messageIds, ...(row.toolsId ? [row.toolsId] : [])])];
  const blobs = await models.ModelBlob.find({ _id: { $in: ids }, sessionId }).lean<BlobRow[]>();
  const byId = new Map(blobs.map((b) => [b._id, JSON.parse(decodeBlob(b)) as unknown]));
  const missing = ids.filter((id) => !byId.has(id));
  if (missing.length > 0) throw new Error(`model call ${callId} names ${missing.length} message(s) that are not stored`);
  return {
    ...summaryOf(row),
    request: {
      messages: row.messageIds.map((id) => byId.get(id) as ModelCallRecord["request"]["messages"][number]),
      tools: row.toolsId ? (byId.get(row.toolsId) as ModelCallRecord["request"]["tools"]) : [],
    },
    response: row.response,
  };
}

/** Every call of one turn whole (for export): the calls, then their messages in one query. */
export async function loadTurnModelCalls(models: Models, sessionId: string, turnId: string): Promise<ModelCallRecord[]> {
  const rows = await models.ModelCall.find({ sessionId, turnId }).sort({ startedAt: 1, _id: 1 }).lean<CallRow[]>();
  if (rows.length === 0) return [];
  const ids = [...new Set(rows.flatMap((r) => [...r.messageIds, ...(r.toolsId ? [r.toolsId] : [])]))];
  const blobs = await models.ModelBlob.find({ _id: { $in: ids }, sessionId }).lean<BlobRow[]>();
  const byId = new Map(blobs.map((b) => [b._id, decodeBlob(b)]));
  const read = <T>(id: string): T => {
    const json = byId.get(id);
    if (json === undefined) throw new Error(`a model call of turn ${turnId} names a message that is not stored`);
    return JSON.parse(json) as T;
  };
  return rows.map((row) => ({
    ...summaryOf(row),
    request: {
      messages: row.messageIds.map((id) => read<ModelCallRecord["request"]["messages"][number]>(id)),
      tools: row.toolsId ? read<ModelCallRecord["request"]["tools"]>(row.toolsId) : [],
    },
    response: row.response,
  }));
}
