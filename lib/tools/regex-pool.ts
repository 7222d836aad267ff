import { Worker } from "node:worker_threads";

/**
 * A small pool of long-lived regex workers (starting a thread per grep call costs tens of
 * milliseconds of main-thread time, which shows up as relay latency under load). Each job
 * has a deadline; a worker that overstays it is terminated and replaced, so a
 * catastrophic pattern costs one thread, never the server's event loop.
 *
 * A job's input is loaded only once a worker is free for it, so callers waiting in the
 * queue hold no file contents: however many greps wait, the main thread holds at most
 * one batch per worker. Waiting jobs are served round-robin between owners, so one
 * caller's pile of slow patterns delays another's job by at most one job per owner ahead.
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

export interface RegexResult {
  matches: RegexMatch[];
  capped: boolean;
  /** Time the worker spent on the job (not the wait for a worker). */
  elapsedMs: number;
}

export class RegexTimeoutError extends Error {}
export class RegexAbortedError extends Error {}

interface Slot {
  worker: Worker;
  busy: boolean;
}

interface Waiter {
  owner: unknown;
  grant: (slot: Slot) => void;
}

const POOL_SIZE = 2;
const WORKER_URL = new URL("./regex-worker.mjs", import.meta.url);

let nextId = 1;
const slots: Slot[] = [];
/** Waiting jobs per owner; the Map's order is the round-robin order. */
const queues = new Map<unknown, Waiter[]>();

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

/** A free slot, marked busy, or undefined when all POOL_SIZE workers are busy. */
function takeFreeSlot(): Slot | undefined {
  let slot = slots.find((s) => !s.busy);
  if (!slot && slots.length < POOL_SIZE) {
    slot = spawn();
    slots.push(slot);
  }
  if (slot) slot.busy = true;
  return slot;
}

function acquire(owner: unknown, signal: AbortSignal): Promise<Slot> {
  const free = takeFreeSlot();
  if (free) return Promise.resolve(free);
  return new Promise((resolve, reject) => {
    const waiter: Waiter = {
      owner,
      grant: (slot) => {
        signal.removeEventListener("abort", onAbort);
        resolve(slot);
      },
    };
    // A cancelled caller leaves the queue instead of taking a worker it no longer needs.
    const onAbort = () => {
      dequeue(waiter);
      reject(new RegexAbortedError("aborted"));
    };
    signal.addEventListener("abort", onAbort, { once: true });
    const queue = queues.get(owner);
    if (queue) queue.push(waiter);
    else queues.set(owner, [waiter]);
  });
}

function dequeue(waiter: Waiter): void {
  const queue = queues.get(waiter.owner);
  if (!queue) return;
  queue.splice(queue.indexOf(waiter), 1);
  if (queue.length === 0) queues.delete(waiter.owner);
}

/** Hands free workers to waiting jobs: the first owner in line, who then goes to the back. */
function dispatch(): void {
  while (queues.size > 0) {
    const slot = takeFreeSlot();
    if (!slot) return;
    const [owner, queue] = queues.entries().next().value!;
    const waiter = queue.shift()!;
    queues.delete(owner);
    if (queue.length > 0) queues.set(owner, queue);
    waiter.grant(slot);
  }
}

function release(slot: Slot): void {
  slot.busy = false;
  dispatch();
}

/**
 * Runs one job for `owner` (any value that stands for the caller: a person's id, a run's signal). `load` builds the
 * job's input once a worker is free; it may return undefined when there is nothing left
 * to match, and the worker goes back to the pool unused.
 */
export async function runRegexJob(
  owner: unknown,
  load: () => Promise<RegexJob | undefined>,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<RegexResult | undefined> {
  const slot = await acquire(owner, signal);
  let job: RegexJob | undefined;
  try {
    job = signal.aborted ? undefined : await load();
  } catch (error) {
    release(slot);
    throw error;
  }
  if (!job || signal.aborted) {
    release(slot);
    if (signal.aborted) throw new RegexAbortedError("aborted");
    return undefined;
  }
  return postJob(slot, job, timeoutMs, signal);
}

function postJob(slot: Slot, job: RegexJob, timeoutMs: number, signal: AbortSignal): Promise<RegexResult> {
  const id = nextId++;
  const started = Date.now();
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
      if (message.id !== id) return;
      finish(false, () => resolve({ matches: message.matches, capped: message.capped, elapsedMs: Date.now() - started }));
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
