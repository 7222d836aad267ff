import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/**
 * Bytes still on the heap after `work` has run and everything unreachable is collected:
 * how a test sees, from outside, that a structure forgets what it no longer needs. The
 * garbage collector is made callable here rather than by a flag on the whole test run.
 */
export async function retainedBytes(work: () => unknown): Promise<number> {
  const before = settledHeap();
  await work();
  // Callbacks scheduled by the work's last step (a promise's clean-up) run first.
  await new Promise((resolve) => setTimeout(resolve, 0));
  return settledHeap() - before;
}

let collect: (() => void) | undefined;

function settledHeap(): number {
  if (!collect) {
    setFlagsFromString("--expose-gc");
    collect = runInNewContext("gc") as () => void;
  }
  // Twice: what only the first pass's weak callbacks let go of goes in the second.
  collect();
  collect();
  return process.memoryUsage().heapUsed;
}
