import type { AgentData, AgentEvent, ChatTurn, SubagentProcess, ToolOutput, ToolStatus } from "@/lib/contracts";
import { newDoc, planDocumentWrite, type DocContent, type DocState, type DocumentWrite } from "./document-writes";
import { endedTurnFields, processFields, streamingFields } from "./document-fields";
import { callAt, findCall, processInTurn, type Agent } from "@/lib/turn/paths";
import type { Models } from "@/models";
import { WriteOutbox, type Write, type WriteOutboxOptions } from "./write-outbox";
import { assertStorable } from "./document-size";
import { resultFields, storedApproval, toolCallRecord, toolCallRecordId, toolOutputChunks } from "./tool-call-records";
import { InsertBatch } from "./insert-batch";

export { stepTextId } from "./document-writes";
export { stepTimesOf } from "./document-fields";
export { toolCallRecordId } from "./tool-call-records";

/**
 * Persists a session's agent events as they are relayed. Writes run one at a time in
 * event order; streamed text is not written per token but coalesced, at most one write
 * per document per flush (its owner calls `flush`, a few times a second), and each write
 * appends only what the document does not hold yet (text-appends.ts): the bytes sent grow
 * with an answer's length, not its square. The store is handed the turn each event folded
 * into (the session's one fold, see docs/architecture.md) and writes from that, so what is
 * stored is what viewers were shown; it keeps no turn of its own and asks for none. Its
 * writes go through the chat's outbox (write-outbox.ts), which retries a failed one with
 * backoff, so a database that drops out for a while loses nothing once it is back; an
 * append whose reply was lost is not stored twice (see `DocumentWrite`). Tool calls'
 * records are inserted in batches (insert-batch.ts): consecutive calls go in one write,
 * and a result (or an approval) for a call whose batch is not sent yet is folded into
 * its record instead of following it as an update.
 */

export interface EventStoreOptions extends WriteOutboxOptions {
  models: Models;
}

export class EventStore {
  private readonly outbox: WriteOutbox;
  private readonly order = new Map<string, number>();
  /** Turn and run documents by id (a turn's id, or a run's). */
  private readonly docs = new Map<string, DocState>();
  private readonly dirty = new Set<DocState>();
  /**
   * The newest insert batch while it may still change: last in the outbox, its write not
   * started. Any other write queued closes it, so writes land in the order of the events.
   */
  private batch: InsertBatch | undefined;

  private readonly models: Models;

  constructor(private readonly options: EventStoreOptions) {
    this.models = options.models;
    this.outbox = new WriteOutbox(options);
  }

  /**
   * Records one event. `turn`: the turn as folded with it; a text event needs none (its
   * text is written by `flush`, which its owner calls with the turn of then).
   */
  record(event: AgentEvent, turn?: ChatTurn): void {
    const { sessionId } = this.options;
    switch (event.type) {
      case "turn:started":
        this.docs.set(event.turnId, newDoc("turn", event.turnId, null));
        this.enqueue(() =>
          this.models.Turn.create(
            storableAs("a turn", {
              _id: event.turnId,
              sessionId,
              prompt: event.prompt,
              ...(event.model !== undefined ? { model: event.model } : {}),
              ...(event.parentTurnId !== undefined ? { parentTurnId: event.parentTurnId } : {}),
              ...(event.sentBy !== undefined ? { sentBy: event.sentBy } : {}),
              ...(event.attachments?.length ? { attachments: event.attachments } : {}),
              ...(event.budget ? { budget: event.budget } : {}),
              status: "running",
              createdAt: new Date(event.createdAt),
              appendSeq: 0,
            }),
          ),
        );
        this.enqueue(() => this.touchSession());
        return;
      case "turn:data":
      case "subagent_data":
        this.recordData(event.turnId, event.runId, event.data, turn);
        return;
      case "subagent_started": {
        const doc = newDoc("run", event.turnId, event.runId);
        doc.fields.set("prompt", JSON.stringify(event.prompt));
        this.docs.set(event.runId, doc);
        this.enqueue(() =>
          this.models.SubagentRun.create(
            storableAs("a subagent run", {
              _id: event.runId,
              sessionId,
              turnId: event.turnId,
              callId: event.callId,
              parentRunId: event.parentRunId,
              depth: event.depth,
              name: event.name,
              task: event.task,
              prompt: event.prompt,
              ...(event.model !== undefined ? { model: event.model } : {}),
              status: "running",
              startedAt: new Date(event.startedAt),
              appendSeq: 0,
              ...(event.model !== undefined ? { model: event.model } : {}),
              ...(event.definition !== undefined ? { definitionId: event.definition.id, definitionVersion: event.definition.version } : {}),
              ...(event.retryOf !== undefined ? { retryOf: event.retryOf } : {}),
              ...(event.budget !== undefined ? { budget: event.budget } : {}),
            }),
          ),
        );
        return;
      }
      case "subagent_completed":
      case "subagent_error":
        this.writeProcessLater(event.turnId, event.runId, turn && processInTurn(turn, event.runId));
        return;
      case "agent:complete":
        // The clean result lands on the spawning call with that call's own result.
        return;
      case "turn:ended": {
        const doc = this.docs.get(event.turnId);
        if (!doc) return;
        this.dirty.delete(doc);
        this.enqueue(this.appendOp(doc, true, turn && { steps: turn.steps, fields: endedTurnFields(turn) }));
        this.enqueue(() => this.touchSession());
        return;
      }
    }
  }

  /** What one agent did: the master's doings go to the turn's document, a run's to its own, by the same rules. */
  private recordData(turnId: string, runId: string | null, data: AgentData, turn: ChatTurn | undefined): void {
    switch (data.kind) {
      case "token":
      case "thinking":
        this.markDirty(runId ?? turnId, data.text.length);
        return;
      case "usage":
        this.markDirty(runId ?? turnId, 0);
        return;
      case "tool_call":
        this.insertCall(turnId, runId, data);
        return;
      case "tool_result":
        this.saveResult(turnId, runId, data.callId, data);
        return;
      case "approval": {
        // What the fold kept (the first decision wins there, see firstDecisionWins), not the event as sent.
        const agent = turn && agentOf(turn, runId);
        const at = agent && findCall(agent, data.callId);
        const approval = (at && callAt(agent, at)?.approval) ?? data.approval;
        const id = toolCallRecordId(turnId, runId, data.callId);
        const waiting = this.batch?.call(id);
        if (waiting) waiting.approval = storedApproval(approval);
        else this.enqueue(() => this.models.ToolCall.updateOne({ _id: id }, { $set: { approval } }));
        return;
      }
      case "input": {
        // The call's questions as the fold kept them (the first answer wins there, see firstAnswerWins).
        const agent = turn && agentOf(turn, runId);
        const at = agent && findCall(agent, data.callId);
        const inputs = at && callAt(agent, at)?.inputs;
        if (!inputs) return;
        const id = toolCallRecordId(turnId, runId, data.callId);
        const waiting = this.batch?.call(id);
        if (waiting) waiting.inputs = inputs;
        else this.enqueue(() => this.models.ToolCall.updateOne({ _id: id }, { $set: { inputs } }));
        return;
      }
      case "steer":
        this.saveSteering(turnId, runId, turn && agentOf(turn, runId));
        return;
    }
  }

  /** An agent's steering messages as the fold holds them (a few short lines, written whole: rare). */
  private saveSteering(turnId: string, runId: string | null, agent: Agent | undefined): void {
    const steering = agent?.steering;
    if (!steering) return;
    if (runId === null) this.enqueue(() => this.models.Turn.updateOne({ _id: turnId }, { $set: { steering } }));
    else this.enqueue(() => this.models.SubagentRun.updateOne({ _id: runId }, { $set: { steering } }));
  }

  /** Whether any streamed text waits to be queued for writing (asked after every event: no allocation). */
  get hasWaiting(): boolean {
    return this.dirty.size > 0;
  }

  /** The turns with streamed text not queued for writing yet: what the next `flush` is for. */
  waiting(): Set<string> {
    return new Set([...this.dirty].map((doc) => doc.turnId));
  }

  /** How many writes were given up (refused, or too large to send): an import checks it is none. */
  get givenUp(): number {
    return this.outbox.givenUp;
  }

  /**
   * Resolves once everything recorded so far is written (or given up on); the text still
   * waiting of each turn handed here is queued first, whatever its length.
   */
  async drain(turns: Iterable<ChatTurn> = []): Promise<void> {
    for (const turn of turns) this.flush(turn, true);
    await this.outbox.drained();
  }

  private insertCall(
    turnId: string,
    runId: string | null,
    call: { step: number; callId: string; name: string; parameters: string; at?: string },
  ): void {
    const orderKey = `${turnId}|${runId ?? ""}`;
    const order = this.order.get(orderKey) ?? 0;
    this.order.set(orderKey, order + 1);
    this.batchToJoin()?.addCall(toolCallRecord(this.options.sessionId, turnId, runId, call, order));
  }

  /** The preview goes on the call record; a longer whole text, in chunks beside it. */
  private saveResult(turnId: string, runId: string | null, callId: string, result: ToolOutput & { status: ToolStatus; at?: string }): void {
    const id = toolCallRecordId(turnId, runId, callId);
    const fields = resultFields(result);
    const waiting = this.batch?.call(id);
    if (waiting) Object.assign(waiting, fields);
    else this.enqueue(() => this.models.ToolCall.updateOne({ _id: id }, { $set: fields }));
    const full = result.fullResponse;
    if (full !== undefined && full.length > result.response.length) {
      for (const chunk of toolOutputChunks(this.options.sessionId, id, full)) this.batchToJoin()?.addOutput(chunk);
    }
  }

  /** Queues a write (false: shed, see write-outbox.ts); one queued behind the open insert batch closes it. */
  private enqueue(write: Write, weight?: () => number): boolean {
    this.batch = undefined;
    return this.outbox.enqueue(write, weight);
  }

  /**
   * The insert batch a record joins: the open one while it has room, else a new one
   * queued now. Each record counts toward the outbox's bound; none when it is shed.
   */
  private batchToJoin(): InsertBatch | undefined {
    if (this.batch && !this.batch.full) return this.outbox.admit() ? this.batch : undefined;
    const batch = new InsertBatch(this.models, () => {
      if (this.batch === batch) this.batch = undefined;
    });
    if (!this.enqueue(batch.write, () => batch.size)) return undefined;
    this.batch = batch;
    return batch;
  }

  private async touchSession(): Promise<void> {
    await this.models.Session.updateOne({ _id: this.options.sessionId }, { $set: { updatedAt: new Date() } });
  }

  /** A run's last write: what it has not stored yet of its texts, its answer and how it ended. */
  private writeProcessLater(turnId: string, runId: string, process: SubagentProcess | undefined): void {
    const doc = this.docs.get(runId);
    if (!doc || doc.turnId !== turnId) return;
    this.dirty.delete(doc);
    this.enqueue(this.appendOp(doc, true, process && { steps: process.steps, fields: processFields(process), response: process.response }));
  }

  private markDirty(docId: string, chars: number): void {
    const doc = this.docs.get(docId);
    if (!doc) return;
    doc.pendingChars += chars;
    this.dirty.add(doc);
  }

  /**
   * Queues an append for each document of `turn` (its own, its runs') with text waiting:
   * at once when enough has streamed for the write to be mostly text, else once it has
   * waited `MAX_WAIT_FLUSHES` flushes (a slow stream would otherwise send more filter
   * than text); `all`: whatever waits. `turn` is the fold of now, its text included.
   */
  flush(turn: ChatTurn, all = false): void {
    for (const doc of this.dirty) {
      if (doc.turnId !== turn.turnId) continue;
      if (!all && doc.pendingChars < MIN_APPEND_CHARS && ++doc.waitedFlushes < MAX_WAIT_FLUSHES) continue;
      this.dirty.delete(doc);
      const agent = agentOf(turn, doc.runId);
      this.enqueue(this.appendOp(doc, false, agent && { steps: agent.steps, fields: streamingFields(agent) }));
    }
  }

  /**
   * One write of a turn or run document (document-writes.ts), planned once, when the
   * write's turn in the queue comes, and resent as is on retry.
   */
  private appendOp(doc: DocState, final: boolean, content: DocContent | undefined): Write {
    doc.pendingChars = 0;
    doc.waitedFlushes = 0;
    let attempt: (() => Promise<void>) | undefined;
    return () => {
      if (!attempt) {
        if (!content) return Promise.resolve();
        attempt = this.sender(doc, planDocumentWrite(doc, content, final), final);
      }
      return attempt();
    };
  }

  /** Each attempt of a planned write: replaced texts' chunks deleted (once), text chunks, then the document. */
  private sender(doc: DocState, write: DocumentWrite | undefined, final: boolean): () => Promise<void> {
    if (!write) return async () => undefined;
    const { sessionId } = this.options;
    const docId = doc.runId ?? doc.turnId;
    const replaced = write.replacedTextIds;
    if (replaced) this.options.log?.warn("a stored text was replaced rather than extended; rewriting it", { sessionId, docId });
    const model = (doc.kind === "turn" ? this.models.Turn : this.models.SubagentRun) as typeof this.models.Turn;
    const { update } = write;
    assertStorable(update, doc.kind === "turn" ? "a turn's update" : "a subagent run's update");
    // A streaming append (a text piece, new steps, stats: values already of the stored
    // types, see document-fields.ts) goes to the driver as is: mongoose's casting of it cost
    // about a third of each write, and the writes come ten times a second per running
    // text, on the relay's event loop. The last write and rewrites keep mongoose's casting.
    const updateOne =
      final || replaced
        ? (filter: Record<string, unknown>) => model.updateOne(filter, update, { timestamps: false })
        : (filter: Record<string, unknown>) => model.collection.updateOne(filter, update);
    let tries = 0;
    let cleared = !replaced;
    return async () => {
      tries++;
      if (!cleared) {
        await this.models.TextChunk.deleteMany({ sessionId, textId: { $in: replaced } });
        cleared = true;
      }
      // Chunks first: a document never names text it does not have. Keyed by offset, so a retry overwrites.
      for (const { textId, offset, data } of write.chunks) {
        await this.models.TextChunk.updateOne(
          { _id: `${textId}#${offset}` },
          { $set: { sessionId, textId, n: offset, data } },
          { upsert: true },
        );
      }
      const result = await updateOne({ _id: docId, appendSeq: write.expectedSeq });
      if (result.matchedCount === 0 && tries === 1) {
        this.options.log?.warn("a stored turn or run was not where its writer left it", { sessionId, docId, appendSeq: write.expectedSeq });
      }
      write.commit();
    };
  }
}

/** A text append waits for this much text, or for MAX_WAIT_FLUSHES flushes: each write sends ~150 bytes besides its text. */
const MIN_APPEND_CHARS = 512;
const MAX_WAIT_FLUSHES = 10;

/** `doc`, once it is known to fit in one document (else the write is refused before it is sent: write-outbox.ts gives it up). */
function storableAs<T extends object>(what: string, doc: T): T {
  assertStorable(doc, what);
  return doc;
}

/** The master's turn itself (`runId` null), or one of its runs at any depth. */
function agentOf(turn: ChatTurn, runId: string | null): Agent | undefined {
  return runId === null ? turn : processInTurn(turn, runId);
}
