import type { AgentEvent, AgentEventOf, ChatTurn, Step, SubagentProcess, ToolOutput } from "@/lib/contracts";
import { processInTurn } from "@/lib/turn/paths";
import pRetry from "p-retry";
import type { Models } from "@/models";
import type { Logger } from "@/lib/log";

/**
 * Persists a session's agent events as they are relayed. Writes run one at a time in
 * event order; streamed text is not written per token but coalesced into one write per
 * `flushMs`. The in-memory turn (folded from the same events by the turn reducer) is the
 * source of every text and state written, so what is stored is what viewers were shown.
 * A failed write is retried with backoff, so a database that drops out for a while
 * loses nothing once it is back.
 */

const OUTPUT_CHUNK_CHARS = 1_000_000;

export interface EventStoreOptions {
  models: Models;
  sessionId: string;
  /** The current in-memory state of a turn (reduced from the same events). */
  getTurn: (turnId: string) => ChatTurn | undefined;
  flushMs?: number;
  retry?: { attempts: number; baseDelayMs: number };
  log?: Pick<Logger, "warn" | "error">;
}

type Op = () => Promise<unknown>;

export const toolCallRecordId = (turnId: string, runId: string | null, callId: string) => `${turnId}:${runId ?? "m"}:${callId}`;

export class EventStore {
  private queue: Promise<void> = Promise.resolve();
  private readonly order = new Map<string, number>();
  private readonly dirtyTurns = new Set<string>();
  private readonly dirtyRuns = new Map<string, string>(); // runId → turnId
  private flushTimer: NodeJS.Timeout | undefined;
  private readonly flushMs: number;
  private readonly retry: { attempts: number; baseDelayMs: number };
  private pending = 0;
  /** textId → chunks of that text already written whole (they never change again). */
  private readonly fullChunks = new Map<string, number>();

  private readonly models: Models;

  constructor(private readonly options: EventStoreOptions) {
    this.models = options.models;
    this.flushMs = options.flushMs ?? 100;
    this.retry = options.retry ?? { attempts: 8, baseDelayMs: 250 };
  }

  /** Records one event, already folded into the turn `getTurn` returns. */
  record(event: AgentEvent): void {
    const { sessionId } = this.options;
    switch (event.type) {
      case "turn:started":
        this.enqueue(() =>
          this.models.Turn.create({ _id: event.turnId, sessionId, prompt: event.prompt, status: "running", createdAt: new Date(event.createdAt) }),
        );
        this.enqueue(() => this.touchSession());
        return;
      case "turn:token":
      case "turn:usage":
        this.markTurn(event.turnId);
        return;
      case "tool:call":
        this.insertCall(event.turnId, null, event);
        return;
      case "tool:result":
        this.saveResult(event.turnId, null, event.callId, event);
        return;
      case "tool:approval": {
        const id = toolCallRecordId(event.turnId, event.runId, event.callId);
        const { approval } = event;
        // Only a pending approval may be replaced: the first decision is the one kept, as in the fold.
        this.enqueue(() => this.models.ToolCall.updateOne({ _id: id, $or: [{ approval: { $exists: false } }, { "approval.state": "pending" }] }, { $set: { approval } }));
        return;
      }
      case "subagent_started":
        this.enqueue(() =>
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
            ...(event.model !== undefined ? { model: event.model } : {}),
            ...(event.retryOf !== undefined ? { retryOf: event.retryOf } : {}),
          }),
        );
        return;
      case "subagent_data": {
        const { data } = event;
        if (data.kind === "tool_call") this.insertCall(event.turnId, event.runId, data);
        else if (data.kind === "tool_result") this.saveResult(event.turnId, event.runId, data.callId, data);
        else if (data.kind === "steer") this.saveSteering(event.turnId, event.runId);
        else this.markRun(event.turnId, event.runId);
        return;
      }
      case "subagent_completed":
      case "subagent_error": {
        this.dirtyRuns.delete(event.runId);
        const process = this.processOf(event.turnId, event.runId);
        if (process) this.enqueue(() => this.writeProcess(event.turnId, process));
        return;
      }
      case "agent:complete":
        this.saveProcess(event);
        return;
      case "turn:ended": {
        this.dirtyTurns.delete(event.turnId);
        const turn = this.options.getTurn(event.turnId);
        if (turn) this.enqueue(() => this.writeTurn(turn, true));
        this.enqueue(() => this.touchSession());
        return;
      }
    }
  }

  /** Seed 000: a finished subagent's full process, stored beside the clean result its parent read. */
  saveProcess(event: AgentEventOf<"agent:complete">): void {
    this.dirtyRuns.delete(event.runId);
    this.enqueue(() => this.writeProcess(event.turnId, event.subagent));
  }

  /** A run's steering messages as the fold holds them (a few short lines, written whole: rare). */
  private saveSteering(turnId: string, runId: string): void {
    const steering = this.processOf(turnId, runId)?.steering;
    if (steering) this.enqueue(() => this.models.SubagentRun.updateOne({ _id: runId }, { $set: { steering } }));
  }

  /** Resolves once everything recorded so far is written (or given up on). */
  async drain(): Promise<void> {
    if (this.flushTimer) {
      clearTimeout(this.flushTimer);
      this.flushTimer = undefined;
      this.enqueue(() => this.writeDirty());
    }
    await this.queue;
  }

  private insertCall(turnId: string, runId: string | null, call: { step: number; callId: string; name: string; parameters: string }): void {
    const orderKey = `${turnId}|${runId ?? ""}`;
    const order = this.order.get(orderKey) ?? 0;
    this.order.set(orderKey, order + 1);
    const { sessionId } = this.options;
    this.enqueue(() =>
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
      }),
    );
  }

  /** The preview goes on the call record; a longer whole text, in chunks beside it. */
  private saveResult(turnId: string, runId: string | null, callId: string, result: ToolOutput & { status: string }): void {
    const id = toolCallRecordId(turnId, runId, callId);
    const { response, responseSize, status, fullResponse: full } = result;
    this.enqueue(() => this.models.ToolCall.updateOne({ _id: id }, { $set: { response, responseSize, status } }));
    if (full !== undefined && full.length > response.length) {
      const { sessionId } = this.options;
      const chunks: { _id: string; sessionId: string; toolCallId: string; n: number; data: string }[] = [];
      for (let n = 0; n * OUTPUT_CHUNK_CHARS < full.length; n++) {
        chunks.push({ _id: `${id}#${n}`, sessionId, toolCallId: id, n, data: full.slice(n * OUTPUT_CHUNK_CHARS, (n + 1) * OUTPUT_CHUNK_CHARS) });
      }
      // One chunk per insert keeps every write far below the 16 MB message limit.
      for (const chunk of chunks) this.enqueue(() => this.models.ToolOutput.create(chunk));
    }
  }

  private async touchSession(): Promise<void> {
    await this.models.Session.updateOne({ _id: this.options.sessionId }, { $set: { updatedAt: new Date() } });
  }

  private processOf(turnId: string, runId: string): SubagentProcess | undefined {
    const turn = this.options.getTurn(turnId);
    return turn && processInTurn(turn, runId);
  }

  private markTurn(turnId: string): void {
    this.dirtyTurns.add(turnId);
    this.scheduleFlush();
  }

  private markRun(turnId: string, runId: string): void {
    this.dirtyRuns.set(runId, turnId);
    this.scheduleFlush();
  }

  private scheduleFlush(): void {
    if (this.flushTimer) return;
    this.flushTimer = setTimeout(() => {
      this.flushTimer = undefined;
      this.enqueue(() => this.writeDirty());
    }, this.flushMs);
  }

  private async writeDirty(): Promise<void> {
    const turns = [...this.dirtyTurns];
    const runs = [...this.dirtyRuns];
    this.dirtyTurns.clear();
    this.dirtyRuns.clear();
    for (const turnId of turns) {
      const turn = this.options.getTurn(turnId);
      if (turn) await this.writeTurn(turn, false);
    }
    for (const [runId, turnId] of runs) {
      const process = this.processOf(turnId, runId);
      if (process) await this.models.SubagentRun.updateOne({ _id: runId }, { $set: { steps: await this.storedSteps(turnId, runId, process.steps), stats: process.stats } });
    }
  }

  /** The turn's steps and stats; once it has ended, also how it ended. */
  private async writeTurn(turn: ChatTurn, ended: boolean): Promise<void> {
    const steps = await this.storedSteps(turn.turnId, null, turn.steps);
    const fields = ended ? { ...endedTurnFields(turn), steps } : { steps, stats: turn.stats };
    await this.models.Turn.updateOne({ _id: turn.turnId }, { $set: fields });
  }

  private async writeProcess(turnId: string, process: SubagentProcess): Promise<void> {
    const steps = await this.storedSteps(turnId, process.runId, process.steps);
    const response = await this.storedText(stepTextId(turnId, process.runId, "response"), process.response);
    await this.models.SubagentRun.updateOne(
      { _id: process.runId },
      { $set: { ...processFields(process), steps, response: response.value, ...(response.chunks ? { responseChunks: response.chunks } : {}) } },
    );
  }

  /** What a step stores on its turn or run: its text and reasoning (its calls are records of their own). */
  private async storedSteps(turnId: string, runId: string | null, steps: readonly Step[]): Promise<StoredStep[]> {
    const out: StoredStep[] = [];
    for (let i = 0; i < steps.length; i++) {
      const text = await this.storedText(stepTextId(turnId, runId, `${i}:text`), steps[i]!.text);
      const thinking = await this.storedText(stepTextId(turnId, runId, `${i}:thinking`), steps[i]!.thinking);
      out.push({
        text: text.value,
        thinking: thinking.value,
        ...(text.chunks ? { textChunks: text.chunks } : {}),
        ...(thinking.chunks ? { thinkingChunks: thinking.chunks } : {}),
      });
    }
    return out;
  }

  /**
   * A text as its document stores it: inline when short; else "" there and the whole text
   * in TextChunks beside it. Texts only grow at their end, so a full chunk never changes:
   * each is written once, and only the last, partial one is rewritten as the text grows.
   */
  private async storedText(textId: string, value: string): Promise<{ value: string; chunks?: number }> {
    if (value.length <= INLINE_TEXT_CHARS) return { value };
    const count = Math.ceil(value.length / OUTPUT_CHUNK_CHARS);
    for (let n = this.fullChunks.get(textId) ?? 0; n < count; n++) {
      const data = value.slice(n * OUTPUT_CHUNK_CHARS, (n + 1) * OUTPUT_CHUNK_CHARS);
      const { sessionId } = this.options;
      await this.models.TextChunk.updateOne({ _id: `${textId}#${n}` }, { $set: { sessionId, textId, n, data } }, { upsert: true });
    }
    this.fullChunks.set(textId, Math.floor(value.length / OUTPUT_CHUNK_CHARS));
    return { value: "", chunks: count };
  }

  /**
   * The outbox: writes wait here, in order, while the database is away, for as long as it
   * is away. It is bounded: past MAX_PENDING_WRITES new writes are shed, each one logged.
   */
  private enqueue(op: Op): void {
    if (this.pending >= MAX_PENDING_WRITES) {
      this.options.log?.error("the database has been away too long: shedding an event write", { sessionId: this.options.sessionId, pending: this.pending });
      return;
    }
    this.pending++;
    this.queue = this.queue.then(() => this.runWithRetry(op)).finally(() => this.pending--);
  }

  /**
   * Retries with backoff (p-retry). While the database is unreachable a write is retried
   * until it lands; a write the database refuses (too large, invalid) is tried `attempts`
   * times and then given up, loudly, so it cannot hold up the writes behind it. A
   * duplicate key means an earlier attempt did land before its reply was lost.
   */
  private async runWithRetry(op: Op): Promise<void> {
    const { attempts, baseDelayMs } = this.retry;
    try {
      await pRetry(op, {
        retries: Number.POSITIVE_INFINITY,
        minTimeout: baseDelayMs,
        maxTimeout: 10_000,
        factor: 2,
        shouldRetry: ({ error, retriesConsumed }) => !landed(error) && (unreachable(error) || retriesConsumed < attempts - 1),
        onFailedAttempt: ({ error, attemptNumber }) => {
          if (!landed(error) && (attemptNumber === 1 || attemptNumber % 10 === 0)) {
            this.options.log?.warn("persisting an event failed; retrying", { attempt: attemptNumber, pending: this.pending, error: String(error) });
          }
        },
      });
    } catch (error) {
      if (!landed(error)) this.options.log?.error("could not persist an event", { sessionId: this.options.sessionId, error: String(error) });
    }
  }
}

/** Writes queued per session while the database is away, at most (each a few KB at most). */
const MAX_PENDING_WRITES = 50_000;

const landed = (error: unknown) => (error as { code?: number }).code === 11000;

/** The database did not answer (down, paused, restarting), as opposed to refusing the write. */
function unreachable(error: unknown): boolean {
  const { name = "", message = "" } = error as { name?: string; message?: string };
  return /MongoNetwork|ServerSelection|PoolCleared|NotConnected|Topology/.test(name) || /buffering timed out|ECONNREFUSED|ECONNRESET|connection .*closed|timed out/i.test(message);
}

/** Longest text kept inside its turn or run document (a UTF-16 million is at most 3 MB of UTF-8). */
const INLINE_TEXT_CHARS = 1_000_000;

interface StoredStep {
  text: string;
  thinking: string;
  textChunks?: number;
  thinkingChunks?: number;
}

/** Names one long text of a turn: the master's (`m`) or a run's step text, reasoning or response. */
export function stepTextId(turnId: string, runId: string | null, part: string): string {
  return `${turnId}:${runId ?? "m"}:${part}`;
}

function endedTurnFields(turn: ChatTurn) {
  return {
    status: turn.status,
    stats: turn.stats,
    ...(turn.error !== undefined ? { error: turn.error } : {}),
    ...(turn.endedAt ? { endedAt: new Date(turn.endedAt) } : {}),
  };
}

/** A process's fields but its texts (steps and response are written by `writeProcess`). */
function processFields(p: SubagentProcess) {
  return {
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
