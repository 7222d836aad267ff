import { Worker } from "node:worker_threads";

/**
 * A small pool of long-lived regex workers (starting a thread per grep call costs tens of
 * milliseconds of main-thread time, which shows up as relay latency under load). Each job
 * has a deadline; a worker that overstays it is terminated and replaced, so a
 * catastrophic pattern costs one thread, never the server's event loop.
 */
export interface RegexJob {
  pattern: string;
  flags: string;
  files: { name: string; text: string }[];
  maxMatches: number;
  maxLineChars: number;
}

export interface RegexMatch {
  name: string;
  number: number;
  text: string;
}

export class RegexTimeoutError extends Error {}
export class RegexAbortedError extends Error {}

interface Slot {
  worker: Worker;
  busy: boolean;
}

const POOL_SIZE = 2;
const WORKER_URL = new URL("./regex-worker.mjs", import.meta.url);

let nextId = 1;
const slots: Slot[] = [];
const waiting: (() => void)[] = [];

function spawn(): Slot {
  // Plain JavaScript needs no loader flags; inheriting them (e.g. --input-type) breaks workers.
  const worker = new Worker(WORKER_URL, { execArgv: [] });
  // Idle workers must not keep the process alive.
  worker.unref();
  const slot = { worker, busy: false };
  worker.on("error", () => replace(slot));
  return slot;
}

function replace(slot: Slot): void {
  void slot.worker.terminate();
  const index = slots.indexOf(slot);
  if (index >= 0) slots.splice(index, 1);
}

async function acquire(): Promise<Slot> {
  for (;;) {
    const free = slots.find((s) => !s.busy);
    if (free) return free;
    if (slots.length < POOL_SIZE) {
      const slot = spawn();
      slots.push(slot);
      return slot;
    }
    await new Promise<void>((resolve) => waiting.push(resolve));
  }
}

function release(slot: Slot): void {
  slot.busy = false;
  waiting.shift()?.();
}

export async function runRegexJob(job: RegexJob, timeoutMs: number, signal: AbortSignal): Promise<{ matches: RegexMatch[]; capped: boolean }> {
  const slot = await acquire();
  slot.busy = true;
  const id = nextId++;
  return new Promise((resolve, reject) => {
    const finish = (kill: boolean, settle: () => void) => {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      slot.worker.off("message", onMessage);
      slot.worker.off("error", onError);
      slot.worker.unref();
      if (kill) replace(slot);
      release(slot);
      settle();
    };
    const onMessage = (message: { id: number; matches: RegexMatch[]; capped: boolean }) => {
      if (message.id === id) finish(false, () => resolve({ matches: message.matches, capped: message.capped }));
    };
    const onError = (error: Error) => finish(true, () => reject(error));
    const onAbort = () => finish(true, () => reject(new RegexAbortedError("aborted")));
    const timer = setTimeout(() => finish(true, () => reject(new RegexTimeoutError("timeout"))), timeoutMs);
    // A job in flight keeps the process alive; an idle worker does not.
    slot.worker.ref();
    slot.worker.on("message", onMessage);
    slot.worker.once("error", onError);
    signal.addEventListener("abort", onAbort, { once: true });
    slot.worker.postMessage({ id, ...job });
  });
}
