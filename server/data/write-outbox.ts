import pRetry from "p-retry";
import type { Logger } from "@/lib/log";
import { unreachable } from "./document-size";

/** One write to the database; run again as is when it fails. */
export type Write = () => Promise<unknown>;

export interface WriteOutboxOptions {
  sessionId: string;
  retry?: { baseDelayMs: number };
  log?: Pick<Logger, "warn" | "error">;
}

/** Writes queued per session while the database is away, at most (each a few KB at most). */
const MAX_PENDING_WRITES = 50_000;

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

  enqueue(write: Write): void {
    if (this.pending >= MAX_PENDING_WRITES) {
      this.options.log?.error("the database has been away too long: shedding an event write", {
        sessionId: this.options.sessionId,
        pending: this.pending,
      });
      this.refused++;
      return;
    }
    this.pending++;
    this.queue = this.queue.then(() => this.runWithRetry(write)).finally(() => this.pending--);
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
        this.refused++;
        this.options.log?.error("could not persist an event: the database refused it; giving it up", {
          sessionId: this.options.sessionId,
          error: String(error),
        });
      }
    }
  }
}

const landed = (error: unknown) => (error as { code?: number }).code === 11000;
