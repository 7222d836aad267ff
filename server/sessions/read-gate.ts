import { AppError } from "@/lib/contracts";

/**
 * At most `concurrent` large reads per key (a person) at once; the next `waiting` wait
 * their turn in arrival order, and past that a read is refused at once with a clear
 * `rate_limited`. A large chat's page can be tens of MB once loaded and folded: without
 * a bound, one person asking for it 75 times at once held 700 MB and left most of the
 * asks unanswered for minutes, other people's included. Keys with nothing running hold
 * nothing. In one process only: the memory it protects is this process's.
 */
export function createReadGate(options: { concurrent: number; waiting: number }) {
  const keys = new Map<string, { running: number; queue: (() => void)[] }>();

  async function acquire(key: string): Promise<() => void> {
    const state = keys.get(key) ?? { running: 0, queue: [] };
    keys.set(key, state);
    if (state.running < options.concurrent) state.running += 1;
    else if (state.queue.length >= options.waiting) {
      throw new AppError(
        "rate_limited",
        `Too many reads of your chats at once (${options.concurrent} running, ${options.waiting} waiting); try again in a moment.`,
      );
    } else await new Promise<void>((resolve) => state.queue.push(resolve));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      // The slot passes straight to the next in line, so a newcomer cannot overtake it.
      const next = state.queue.shift();
      if (next) next();
      else if (--state.running === 0) keys.delete(key);
    };
  }

  return {
    acquire,
    /** Runs `read` once a slot is free (see above). */
    async run<T>(key: string, read: () => Promise<T>): Promise<T> {
      const release = await acquire(key);
      try {
        return await read();
      } finally {
        release();
      }
    },
  };
}

export type ReadGate = ReturnType<typeof createReadGate>;

/**
 * `chunks` that call `release` once they are read to the end, fail, or are let go of
 * (`return`), for a read whose slot lasts as long as its download is being written.
 */
export function releasingChunks<T>(chunks: AsyncIterable<T>, release: () => void): AsyncIterable<T> {
  return {
    [Symbol.asyncIterator]() {
      const inner = chunks[Symbol.asyncIterator]();
      return {
        async next() {
          try {
            const next = await inner.next();
            if (next.done) release();
            return next;
          } catch (error) {
            release();
            throw error;
          }
        },
        async return(value?: unknown) {
          release();
          return (await inner.return?.(value)) ?? { done: true, value: undefined };
        },
      };
    },
  };
}
