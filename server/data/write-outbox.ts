import pRetry from "p-retry";
import type { Logger } from "@/lib/log";
import { unreachable } from "./document-size";

/** One write to the database; run again as is when it fails. */
export type Write = () => Promise<unknown>;

export interface WriteOutboxOptions {
  sessionId: string;
  retry?: { baseDelayMs: number };
  log?: Pick<Logger, "warn" | "error">;
  /** Told every change of the queue's depth and every write given up (the process's metrics add up every chat's). */
  meter?: OutboxMeter;
}

/** What an outbox tells whoever counts: its depth as it changes, and each write it gives up and why. */
export interface OutboxMeter {
  queued(delta: number): void;
  /** `shed`: past the bound while the database was away; `refused`: the database (or the size check) refused it. */
  givenUp(reason: "shed" | "refused", count: number): void;
}

/** Writes queued per session while the database is away, at most (each a few KB at most; a batch weighs one per document). */
const MAX_PENDING_WRITES = 50_000;

/**
 * Some documents of one write were refused (the database's answer, or too large to send)
 * while the rest landed: each refused one counts as a write given up.
 */
export class WritesRefused extends Error {
  override readonly name = "WritesRefused";
  constructor(
    readonly count: number,
    reason: string,
  ) {
    super(`${count} document(s) refused: ${reason}`);
  }
}

/**
 * The documents of a bulk insert (`ordered: false`) the database refused, with why: none
 * when every error is a duplicate key (those documents had landed, by an earlier attempt
 * whose reply was lost). Undefined when `error` is not the database's answer about its
 * documents (an outage): the driver wraps a network or server-selection failure in a
 * bulk write error too, with no write errors, and then nothing is known to have landed.
 */
export function refusedInBulk(error: unknown): { count: number; reason: string } | undefined {
  const errors = writeErrorsOf(error);
  if (!errors || errors.length === 0) return undefined;
  const refused = errors.filter((e) => e.code !== DUPLICATE_KEY);
  return { count: refused.length, reason: refused[0]?.errmsg ?? "" };
}

/**
 * A chat's outbox: its writes run one at a time, in the order queued, and wait here while
 * the database is away, for as long as it is away. It is bounded: past MAX_PENDING_WRITES
 * new writes are shed, each one logged. A write the database refuses is given up at once
 * (and counted: `givenUp`), so it cannot hold up the writes behind it.
 */
export class WriteOutbox {
  private queue: Promise<void> = Promise.resolve();
  private pending = 0;
  private readonly retry: { baseDelayMs: number };
  private refused = 0;

  constructor(private readonly options: WriteOutboxOptions) {
    this.retry = options.retry ?? { baseDelayMs: 250 };
  }

  /** How many writes were refused or shed rather than stored (an import checks it is none). */
  get givenUp(): number {
    return this.refused;
  }

  /**
   * Queues `write`, or sheds it (false) when the bound is reached. `weight`: how many
   * writes it stands for, read when it is done (a batch that took more documents while
   * it waited: each was admitted with `admit`).
   */
  enqueue(write: Write, weight: () => number = () => 1): boolean {
    if (!this.admit()) return false;
    this.queue = this.queue
      .then(() => this.runWithRetry(write))
      .finally(() => {
        const done = weight();
        this.pending -= done;
        this.options.meter?.queued(-done);
      });
    return true;
  }

  /** Counts one more write toward the bound (a document joining a queued batch), or sheds it (false). */
  admit(): boolean {
    if (this.pending >= MAX_PENDING_WRITES) {
      this.options.log?.error("the database has been away too long: shedding an event write", {
        sessionId: this.options.sessionId,
        pending: this.pending,
      });
      this.refused++;
      this.options.meter?.givenUp("shed", 1);
      return false;
    }
    this.pending++;
    this.options.meter?.queued(1);
    return true;
  }

  /** Resolves once every write queued so far has landed or been given up on. */
  drained(): Promise<void> {
    return this.queue;
  }

  /**
   * Retries with backoff (p-retry). While the database is unreachable a write is retried
   * until it lands; a write the database refuses (too large, invalid: an answer, the
   * same on every try), or one its writer found too large before sending it
   * (document-size.ts), is given up at once, loudly. A duplicate key means an earlier
   * attempt did land before its reply was lost.
   */
  private async runWithRetry(write: Write): Promise<void> {
    const { baseDelayMs } = this.retry;
    try {
      await pRetry(write, {
        retries: Number.POSITIVE_INFINITY,
        minTimeout: baseDelayMs,
        maxTimeout: 10_000,
        factor: 2,
        shouldRetry: ({ error }) => !landed(error) && unreachable(error),
        onFailedAttempt: ({ error, attemptNumber }) => {
          if (!landed(error) && (attemptNumber === 1 || attemptNumber % 10 === 0)) {
            this.options.log?.warn("persisting an event failed; retrying", {
              attempt: attemptNumber,
              pending: this.pending,
              error: String(error),
            });
          }
        },
      });
    } catch (error) {
      if (!landed(error)) {
        const count = error instanceof WritesRefused ? error.count : 1;
        this.refused += count;
        this.options.meter?.givenUp("refused", count);
        this.options.log?.error("could not persist an event: the database refused it; giving it up", {
          sessionId: this.options.sessionId,
          error: String(error),
        });
      }
    }
  }
}

const DUPLICATE_KEY = 11000;

type WriteError = { code?: number; errmsg?: string };

/** The driver's bulk write error lists its write errors (an array, or a single one). */
function writeErrorsOf(error: unknown): WriteError[] | undefined {
  const errors = (error as { writeErrors?: WriteError | WriteError[] } | null)?.writeErrors;
  if (errors === undefined || errors === null) return undefined;
  return Array.isArray(errors) ? errors : [errors];
}

/** A duplicate key: an earlier attempt landed before its reply was lost. A bulk error is one only when all its errors are. */
function landed(error: unknown): boolean {
  const errors = writeErrorsOf(error);
  if (errors && errors.length > 0) return errors.every((e) => e.code === DUPLICATE_KEY);
  return (error as { code?: number }).code === DUPLICATE_KEY;
}
