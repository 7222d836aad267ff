import pRetry from "p-retry";
import type { Logger } from "@/lib/log";

/** One write to the database; run again as is when it fails. */
export type Write = () => Promise<unknown>;

export interface WriteOutboxOptions {
  sessionId: string;
  retry?: { attempts: number; baseDelayMs: number };
  log?: Pick<Logger, "warn" | "error">;
}

/** Writes queued per session while the database is away, at most (each a few KB at most). */
const MAX_PENDING_WRITES = 50_000;

/**
 * A chat's outbox: its writes run one at a time, in the order queued, and wait here while
 * the database is away, for as long as it is away. It is bounded: past MAX_PENDING_WRITES
 * new writes are shed, each one logged.
 */
export class WriteOutbox {
  private queue: Promise<void> = Promise.resolve();
  private pending = 0;
  private readonly retry: { attempts: number; baseDelayMs: number };

  constructor(private readonly options: WriteOutboxOptions) {
    this.retry = options.retry ?? { attempts: 8, baseDelayMs: 250 };
  }

  enqueue(write: Write): void {
    if (this.pending >= MAX_PENDING_WRITES) {
      this.options.log?.error("the database has been away too long: shedding an event write", {
        sessionId: this.options.sessionId,
        pending: this.pending,
      });
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
   * until it lands; a write the database refuses (too large, invalid) is tried `attempts`
   * times and then given up, loudly, so it cannot hold up the writes behind it. A
   * duplicate key means an earlier attempt did land before its reply was lost.
   */
  private async runWithRetry(write: Write): Promise<void> {
    const { attempts, baseDelayMs } = this.retry;
    try {
      await pRetry(write, {
        retries: Number.POSITIVE_INFINITY,
        minTimeout: baseDelayMs,
        maxTimeout: 10_000,
        factor: 2,
        shouldRetry: ({ error, retriesConsumed }) => !landed(error) && (unreachable(error) || retriesConsumed < attempts - 1),
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
      if (!landed(error))
        this.options.log?.error("could not persist an event", { sessionId: this.options.sessionId, error: String(error) });
    }
  }
}

const landed = (error: unknown) => (error as { code?: number }).code === 11000;

/** The database did not answer (down, paused, restarting), as opposed to refusing the write. */
function unreachable(error: unknown): boolean {
  const { name = "", message = "" } = error as { name?: string; message?: string };
  return (
    /MongoNetwork|ServerSelection|PoolCleared|NotConnected|Topology/.test(name) ||
    /buffering timed out|ECONNREFUSED|ECONNRESET|connection .*closed|timed out/i.test(message)
  );
}
