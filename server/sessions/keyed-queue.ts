/**
 * Runs tasks one at a time per key, in arrival order; different keys do not wait for each
 * other. Used where a check and the write it guards must not interleave (a person's chat
 * cap: count, then create). In one process only: several processes need the database to
 * decide (see the scale-out issue).
 */
export function createKeyedQueue() {
  const tails = new Map<string, Promise<unknown>>();
  return {
    run<T>(key: string, task: () => Promise<T>): Promise<T> {
      const previous = tails.get(key) ?? Promise.resolve();
      const result = previous.then(task, task);
      const tail = result.catch(() => undefined);
      tails.set(key, tail);
      // The last task of a key removes the key, so the map holds only keys with work queued.
      void tail.then(() => {
        if (tails.get(key) === tail) tails.delete(key);
      });
      return result;
    },
  };
}
