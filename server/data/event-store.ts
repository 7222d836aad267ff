import type { AgentData, AgentEvent, ChatTurn, Step, SubagentProcess, ToolOutput, TurnStats } from "@/lib/contracts";
import { emptyStoredTexts, planAppends, safeEnd, type StoredTexts } from "./text-appends";
import { callAt, findCall, processInTurn, type Agent } from "@/lib/turn/paths";
import type { Models } from "@/models";
import { WriteOutbox, type Write, type WriteOutboxOptions } from "./write-outbox";

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
 * append whose reply was lost is not stored twice (see `appendOp`).
 */

const OUTPUT_CHUNK_CHARS = 1_000_000;

export interface EventStoreOptions extends WriteOutboxOptions {
  models: Models;
}

export const toolCallRecordId = (turnId: string, runId: string | null, callId: string) => `${turnId}:${runId ?? "m"}:${callId}`;

/** One turn or run document as this writer last stored it (it is the only writer while the turn runs). */
interface DocState {
  kind: "turn" | "run";
  turnId: string;
  runId: string | null;
  /** The document's `appendSeq`: an append names the value it expects, so a retried one that landed matches nothing. */
  appendSeq: number;
  texts: StoredTexts;
  /** The texts as last planned, to tell an append from a rewrite (a replaced process). */
  heldSteps: readonly { text: string; thinking: string }[];
  /** JSON of each other field as last written, so an unchanged field is not sent again. */
  fields: Map<string, string>;
  response?: string;
  /** Text streamed since its last append was queued, and for how many flushes it has waited. */
  pendingChars: number;
  waitedFlushes: number;
}

export class EventStore {
  private readonly outbox: WriteOutbox;
  private readonly order = new Map<string, number>();
  /** Turn and run documents by id (a turn's id, or a run's). */
  private readonly docs = new Map<string, DocState>();
  private readonly dirty = new Set<DocState>();

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
        this.outbox.enqueue(() =>
          this.models.Turn.create({
            _id: event.turnId,
            sessionId,
            prompt: event.prompt,
            status: "running",
            createdAt: new Date(event.createdAt),
            appendSeq: 0,
          }),
        );
        this.outbox.enqueue(() => this.touchSession());
        return;
      case "turn:data":
      case "subagent_data":
        this.recordData(event.turnId, event.runId, event.data, turn);
        return;
      case "subagent_started": {
        const doc = newDoc("run", event.turnId, event.runId);
        doc.fields.set("prompt", JSON.stringify(event.prompt));
        this.docs.set(event.runId, doc);
        this.outbox.enqueue(() =>
          this.models.SubagentRun.create({
            _id: event.runId,
            sessionId,
            turnId: event.turnId,
            callId: event.callId,
            parentRunId: event.parentRunId,
            depth: event.depth,
            name: event.name,
            task: event.task,
            prompt: event.prompt,
            status: "running",
            startedAt: new Date(event.startedAt),
            appendSeq: 0,
            ...(event.model !== undefined ? { model: event.model } : {}),
            ...(event.retryOf !== undefined ? { retryOf: event.retryOf } : {}),
          }),
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
        this.outbox.enqueue(this.appendOp(doc, true, turn && { steps: turn.steps, fields: endedTurnFields(turn) }));
        this.outbox.enqueue(() => this.touchSession());
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
        this.outbox.enqueue(() => this.models.ToolCall.updateOne({ _id: id }, { $set: { approval } }));
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
    if (runId === null) this.outbox.enqueue(() => this.models.Turn.updateOne({ _id: turnId }, { $set: { steering } }));
    else this.outbox.enqueue(() => this.models.SubagentRun.updateOne({ _id: runId }, { $set: { steering } }));
  }

  /** The turns with streamed text not queued for writing yet: what the next `flush` is for. */
  waiting(): Set<string> {
    return new Set([...this.dirty].map((doc) => doc.turnId));
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
    const { sessionId } = this.options;
    this.outbox.enqueue(() =>
      this.models.ToolCall.create({
        _id: toolCallRecordId(turnId, runId, call.callId),
        sessionId,
        turnId,
        runId,
        callId: call.callId,
        step: call.step,
        order,
        name: call.name,
        parameters: call.parameters,
        status: "running",
        ...(call.at !== undefined ? { startedAt: call.at } : {}),
      }),
    );
  }

  /** The preview goes on the call record; a longer whole text, in chunks beside it. */
  private saveResult(turnId: string, runId: string | null, callId: string, result: ToolOutput & { status: string; at?: string }): void {
    const id = toolCallRecordId(turnId, runId, callId);
    const { response, responseSize, status, fullResponse: full, at } = result;
    this.outbox.enqueue(() =>
      this.models.ToolCall.updateOne(
        { _id: id },
        { $set: { response, responseSize, status, ...(at !== undefined ? { endedAt: at } : {}) } },
      ),
    );
    if (full !== undefined && full.length > response.length) {
      const { sessionId } = this.options;
      const chunks: { _id: string; sessionId: string; toolCallId: string; n: number; data: string }[] = [];
      for (let n = 0; n * OUTPUT_CHUNK_CHARS < full.length; n++) {
        chunks.push({
          _id: `${id}#${n}`,
          sessionId,
          toolCallId: id,
          n,
          data: full.slice(n * OUTPUT_CHUNK_CHARS, (n + 1) * OUTPUT_CHUNK_CHARS),
        });
      }
      // One chunk per insert keeps every write far below the 16 MB message limit.
      for (const chunk of chunks) this.outbox.enqueue(() => this.models.ToolOutput.create(chunk));
    }
  }

  private async touchSession(): Promise<void> {
    await this.models.Session.updateOne({ _id: this.options.sessionId }, { $set: { updatedAt: new Date() } });
  }

  /** A run's last write: what it has not stored yet of its texts, its answer and how it ended. */
  private writeProcessLater(turnId: string, runId: string, process: SubagentProcess | undefined): void {
    const doc = this.docs.get(runId);
    if (!doc || doc.turnId !== turnId) return;
    this.dirty.delete(doc);
    this.outbox.enqueue(
      this.appendOp(doc, true, process && { steps: process.steps, fields: processFields(process), response: process.response }),
    );
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
      this.outbox.enqueue(
        this.appendOp(
          doc,
          false,
          agent && { steps: agent.steps, fields: { stats: storedStats(agent.stats), ...stepTimesOf(agent.steps) } },
        ),
      );
    }
  }

  /**
   * One write of a turn or run document: what its texts gained since the last write
   * (planned once, when the write's turn in the queue comes, and resent as is on retry),
   * and those of its other fields that changed. The filter names the `appendSeq` the
   * document had before, so a retry of an update that did land matches nothing.
   */
  private appendOp(
    doc: DocState,
    final: boolean,
    state: { steps: readonly Step[]; fields: Record<string, unknown>; response?: string } | undefined,
  ): Write {
    doc.pendingChars = 0;
    doc.waitedFlushes = 0;
    let attempt: (() => Promise<void>) | undefined;
    return () => {
      if (!attempt) {
        if (!state) return Promise.resolve();
        attempt = this.planWrite(doc, state, final);
      }
      return attempt();
    };
  }

  private planWrite(
    doc: DocState,
    state: { steps: readonly Step[]; fields: Record<string, unknown>; response?: string },
    final: boolean,
  ): () => Promise<void> {
    const rewrite = !extendsHeld(doc.heldSteps, state.steps, final);
    const from = rewrite ? emptyStoredTexts() : doc.texts;
    const textId = (i: number, field: string) => stepTextId(doc.turnId, doc.runId, `${i}:${field}`);
    const plan = planAppends(from, state.steps, { textId, inlineBudget: INLINE_TEXT_CHARS, chunkChars: OUTPUT_CHUNK_CHARS, final });
    const set: Record<string, unknown> = { ...plan?.set };
    const chunks = plan?.chunks.slice() ?? [];
    let inline = plan?.next.inline ?? from.inline;
    if (rewrite) {
      this.options.log?.warn("a stored text was replaced rather than extended; rewriting it", {
        sessionId: this.options.sessionId,
        docId: doc.runId ?? doc.turnId,
      });
      set.steps = state.steps.map((_, i) => plan?.set[`steps.${i}`]);
      for (const key of Object.keys(plan?.set ?? {})) delete set[key];
    }
    const fields = new Map<string, string>();
    for (const [key, value] of Object.entries(state.fields)) {
      const json = JSON.stringify(value);
      if (doc.fields.get(key) === json) continue;
      fields.set(key, json);
      set[key] = value;
    }
    let response = doc.response;
    if (state.response !== undefined && state.response !== doc.response) {
      response = state.response;
      const responseId = stepTextId(doc.turnId, doc.runId, "response");
      if (state.response.length <= INLINE_TEXT_CHARS - inline) {
        set.response = state.response;
        inline += state.response.length;
      } else {
        set.response = "";
        let n = 0;
        for (let at = 0; at < state.response.length; n++) {
          const end =
            at + OUTPUT_CHUNK_CHARS >= state.response.length ? state.response.length : safeEnd(state.response, at + OUTPUT_CHUNK_CHARS);
          chunks.push({ textId: responseId, offset: at, data: state.response.slice(at, end) });
          at = end;
        }
        set.responseChunks = n;
      }
    }
    const update: Record<string, unknown> = { $inc: { appendSeq: 1, ...(rewrite ? {} : plan?.inc) } };
    if (Object.keys(set).length > 0) update.$set = set;
    if (!rewrite && plan && Object.keys(plan.push).length > 0) update.$push = plan.push;
    const nothing = !plan && !rewrite && update.$set === undefined;
    const expected = doc.appendSeq;
    const next: StoredTexts = plan?.next ?? from;
    const commit = () => {
      doc.appendSeq = expected + 1;
      doc.texts = { steps: next.steps, inline };
      doc.heldSteps = state.steps;
      for (const [key, json] of fields) doc.fields.set(key, json);
      doc.response = response;
    };
    if (nothing) return async () => undefined;
    const { sessionId } = this.options;
    const model = (doc.kind === "turn" ? this.models.Turn : this.models.SubagentRun) as typeof this.models.Turn;
    // A streaming append (a text piece, new steps, stats: values already of the stored
    // types, see `storedStats`) goes to the driver as is: mongoose's casting of it cost
    // about a third of each write, and the writes come ten times a second per running
    // text, on the relay's event loop. The last write and rewrites keep mongoose's casting.
    const updateOne =
      final || rewrite
        ? (filter: Record<string, unknown>) => model.updateOne(filter, update, { timestamps: false })
        : (filter: Record<string, unknown>) => model.collection.updateOne(filter, update);
    let tries = 0;
    let cleared = !rewrite;
    return async () => {
      tries++;
      if (!cleared) {
        const ids = doc.heldSteps.flatMap((_, i) => [textId(i, "text"), textId(i, "thinking")]);
        await this.models.TextChunk.deleteMany({ sessionId, textId: { $in: ids } });
        cleared = true;
      }
      // Chunks first: a document never names text it does not have. Keyed by offset, so a retry overwrites.
      for (const chunk of chunks) {
        const { textId: id, offset, data } = chunk;
        await this.models.TextChunk.updateOne(
          { _id: `${id}#${offset}` },
          { $set: { sessionId, textId: id, n: offset, data } },
          { upsert: true },
        );
      }
      const result = await updateOne({ _id: doc.runId ?? doc.turnId, appendSeq: expected });
      if (result.matchedCount === 0 && tries === 1) {
        this.options.log?.warn("a stored turn or run was not where its writer left it", {
          sessionId,
          docId: doc.runId ?? doc.turnId,
          appendSeq: expected,
        });
      }
      commit();
    };
  }
}

/** A text append waits for this much text, or for MAX_WAIT_FLUSHES flushes: each write sends ~150 bytes besides its text. */
const MIN_APPEND_CHARS = 512;
const MAX_WAIT_FLUSHES = 10;

function newDoc(kind: DocState["kind"], turnId: string, runId: string | null): DocState {
  return {
    kind,
    turnId,
    runId,
    appendSeq: 0,
    texts: emptyStoredTexts(),
    heldSteps: [],
    fields: new Map(),
    pendingChars: 0,
    waitedFlushes: 0,
  };
}

/** The master's turn itself (`runId` null), or one of its runs at any depth. */
function agentOf(turn: ChatTurn, runId: string | null): Agent | undefined {
  return runId === null ? turn : processInTurn(turn, runId);
}

/**
 * Whether `steps` only add to what was held: texts grow at their end, steps are added
 * after. While a run streams the fold only appends (by offset), so lengths say it; the
 * last write compares text, in case the fold ever replaced a text rather than extended it.
 */
function extendsHeld(
  held: readonly { text: string; thinking: string }[],
  steps: readonly { text: string; thinking: string }[],
  compareText: boolean,
): boolean {
  if (steps.length < held.length) return false;
  for (let i = 0; i < held.length; i++) {
    const before = held[i]!;
    const now = steps[i]!;
    if (before === now) continue;
    if (!grows(before.text, now.text, compareText) || !grows(before.thinking, now.thinking, compareText)) return false;
  }
  return true;
}

function grows(before: string, now: string, compareText: boolean): boolean {
  if (before === now) return true;
  return now.length >= before.length && (!compareText || now.startsWith(before));
}

/** Longest text kept inside its turn or run document (a UTF-16 million is at most 3 MB of UTF-8). */
const INLINE_TEXT_CHARS = 1_000_000;

/** Names one long text of a turn: the master's (`m`) or a run's step text, reasoning or response. */
export function stepTextId(turnId: string, runId: string | null, part: string): string {
  return `${turnId}:${runId ?? "m"}:${part}`;
}

/** The steps' times as stored (`stepTimesField`), or nothing while no step has ended with times. */
export function stepTimesOf(steps: readonly Step[]): { stepTimes?: ([string, string] | null)[] } {
  if (!steps.some((s) => s.startedAt !== undefined)) return {};
  return { stepTimes: steps.map((s) => (s.startedAt !== undefined && s.endedAt !== undefined ? [s.startedAt, s.endedAt] : null)) };
}

function endedTurnFields(turn: ChatTurn) {
  return {
    ...stepTimesOf(turn.steps),
    status: turn.status,
    stats: turn.stats,
    ...(turn.error !== undefined ? { error: turn.error } : {}),
    ...(turn.endedAt ? { endedAt: new Date(turn.endedAt) } : {}),
  };
}

/** Stats as the schema stores them (statsSchema), built here since a streaming append skips mongoose's casting. */
function storedStats(stats: TurnStats): TurnStats {
  const { chat, system } = stats;
  return {
    chat: { inputTokens: chat.inputTokens, outputTokens: chat.outputTokens },
    system: { inputTokens: system.inputTokens, outputTokens: system.outputTokens },
    steps: stats.steps,
    runtimeMs: stats.runtimeMs,
    cost: stats.cost,
  };
}

/** A process's fields but its texts (steps and response are written by `writeProcess`). */
function processFields(p: SubagentProcess) {
  return {
    ...stepTimesOf(p.steps),
    prompt: p.prompt,
    status: p.status,
    stats: p.stats,
    ...(p.endReason ? { endReason: p.endReason } : {}),
    ...(p.error ? { error: p.error } : {}),
    ...(p.endedAt ? { endedAt: new Date(p.endedAt) } : {}),
    ...(p.model !== undefined ? { model: p.model } : {}),
    ...(p.steering ? { steering: p.steering } : {}),
  };
}
