import { Worker } from "node:worker_threads";
import { AppError, type ErrorCode, type Issue } from "@/lib/contracts";
import type { SessionFile } from "@/lib/export/session-file";

/**
 * An imported file is parsed and checked (parseSessionFile) on a worker thread: parsing
 * and validating tens of megabytes is work that cannot be sliced, and on the server's own
 * thread it would hold up every other person's requests while it ran. The server's
 * thread only receives the checked file, or the refusal. A few run at once (each holds
 * its file and a parse of it); the rest wait their turn.
 */

const AT_ONCE = 2;
const CHECK_TIMEOUT_MS = 60_000;
const MAX_CHECK_HEAP_MB = 2_048;

type Answer = { ok: true; file: SessionFile } | { ok: false; code: ErrorCode; message: string; issues?: Issue[] };

let running = 0;
const waiting: Array<() => void> = [];

export async function checkSessionFileOffThread(text: string): Promise<SessionFile> {
  if (running < AT_ONCE) running++;
  else await new Promise<void>((resolve) => waiting.push(resolve));
  try {
    const answer = await inWorker(text);
    if (answer.ok) return answer.file;
    throw new AppError(answer.code, answer.message, answer.issues);
  } finally {
    // The slot passes straight to the next in line (as in read-gate.ts), so a newcomer
    // cannot take it between the release and the waiter's wake-up.
    const next = waiting.shift();
    if (next) next();
    else running--;
  }
}

function inWorker(text: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    // An entry in JavaScript that loads the TypeScript check through tsx.
    const worker = new Worker(new URL("./session-file-check.worker.mjs", import.meta.url), {
      workerData: { text },
      // A hostile file must not take the server's memory with it: the worker alone stops.
      resourceLimits: { maxOldGenerationSizeMb: MAX_CHECK_HEAP_MB },
    });
    const timer = setTimeout(() => {
      void worker.terminate();
      reject(new AppError("too_large", `The file took more than ${CHECK_TIMEOUT_MS / 1000} s to check; nothing was imported.`));
    }, CHECK_TIMEOUT_MS);
    const settle = () => clearTimeout(timer);
    worker.once("message", (answer: Answer) => {
      settle();
      resolve(answer);
      void worker.terminate();
    });
    worker.once("error", (error: Error & { code?: string }) => {
      settle();
      reject(
        error.code === "ERR_WORKER_OUT_OF_MEMORY"
          ? new AppError("too_large", "The file needs more memory to check than an import may take; nothing was imported.")
          : error,
      );
    });
    worker.once("exit", (code) => {
      settle();
      reject(new Error(`the import check stopped (exit code ${code})`));
    });
  });
}
