import { AbortedError } from "@/lib/agent/model-step";
import type { RemoteAgentRef } from "./remote-ref";
import { DEFAULT_FOLD_LIMITS, RemoteTaskFold, type FoldLimits, type FoldOutput } from "./task-stream";
import { RemoteAgentError, type RemoteAgentTransport, type RemoteTask, type RemoteUpdate } from "./transport";

/**
 * One run of a remote agent: the task started with the spawn packet, its stream folded
 * into steps as it arrives (task-stream.ts), a question it asks put to the person and the
 * answer sent back into the same task, and the answer returned. A kill, a watchdog or a
 * remote that falls silent cancels the task on the remote before the run ends; whatever
 * the remote does, only this run fails, with a message a person can read.
 */

export interface RemoteRunOptions {
  transport: RemoteAgentTransport;
  ref: RemoteAgentRef;
  /** The definition is the operator's (see RemoteCallOptions.trusted). */
  trusted: boolean;
  /** The definition's name and the person the run is for (see RemoteCallOptions). */
  agent: string;
  ownerId?: string;
  text: string;
  /** The run's: aborted by a kill, its parent's stop, its watchdog or its budget. */
  signal: AbortSignal;
  out: FoldOutput;
  /** A remote that sends nothing for this long is given up on (and its task cancelled). */
  idleMs: number;
  limits?: FoldLimits;
  /** Puts the remote's question to a person; undefined when they declined. Absent: nobody can be asked. */
  ask?: (question: string) => Promise<string | undefined>;
  /** Told once the task exists: a follow-up (steering) goes into it from there. */
  onTask?: (followUp: (text: string) => Promise<void>) => void;
}

export async function runRemoteAgent(options: RemoteRunOptions): Promise<string> {
  const { transport, ref, trusted, signal, out } = options;
  // What the transport holds open (a stream, a follow-up's) closes when the run ends, however it ends.
  const open = new AbortController();
  const onAbort = () => open.abort(signal.reason);
  signal.addEventListener("abort", onAbort, { once: true });
  const fold = new RemoteTaskFold(out, options.limits ?? DEFAULT_FOLD_LIMITS);
  const host = new URL(ref.cardUrl).host;
  let task: RemoteTask | undefined;
  // Sent, not awaited: the run ends now whatever the remote makes of it (the transport bounds the request).
  const cancel = () => {
    if (task && fold.taskId) void task.cancel();
  };
  try {
    task = await untilAborted(
      transport.start(ref, options.text, {
        trusted,
        signal: open.signal,
        agent: options.agent,
        ...(options.ownerId ? { ownerId: options.ownerId } : {}),
      }),
      signal,
      options.idleMs,
    );
    const started = task;
    options.onTask?.(async (text) => {
      for await (const update of started.send(text, open.signal)) fold.apply(update);
    });
    let stream = task.updates;
    for (;;) {
      await consume(stream, fold, signal, options.idleMs, host);
      const outcome = fold.ended();
      switch (outcome.kind) {
        case "completed":
          return outcome.answer;
        case "input-required": {
          if (!options.ask) {
            throw new RemoteAgentError(`The remote agent at ${host} asked "${outcome.question}", and this run has nobody to ask.`);
          }
          const answer = await options.ask(outcome.question);
          if (signal.aborted) throw new AbortedError(signal.reason);
          if (answer === undefined) {
            throw new RemoteAgentError(
              `The remote agent at ${host} asked "${outcome.question}", and the question was declined or not answered.`,
            );
          }
          fold.resume();
          stream = task.send(answer, open.signal);
          continue;
        }
        case "canceled":
          throw new RemoteAgentError(`The remote agent at ${host} cancelled the task.`);
        case "failed":
          throw new RemoteAgentError(`The remote agent at ${host} failed: ${outcome.message}`);
        default:
          throw new RemoteAgentError(outcome.message);
      }
    }
  } catch (error) {
    if (signal.aborted) {
      cancel();
      throw new AbortedError(signal.reason);
    }
    if (error instanceof Idle || (error instanceof RemoteAgentError && fold.outcome?.kind !== "failed")) cancel();
    if (error instanceof Idle) {
      throw new RemoteAgentError(
        `The remote agent at ${host} sent nothing for ${Math.round(options.idleMs / 1000)} s; its task was cancelled.`,
      );
    }
    throw error instanceof RemoteAgentError
      ? error
      : new RemoteAgentError(`The remote agent at ${host} failed: ${String(error)}`, { cause: error });
  } finally {
    signal.removeEventListener("abort", onAbort);
    open.abort();
  }
}

class Idle extends Error {}

/**
 * Reads a stream into the fold until it ends or the task stops. Each read races the run's
 * signal and the idle timer, so a remote that ignores an abort cannot hold the run.
 */
async function consume(
  stream: AsyncIterable<RemoteUpdate>,
  fold: RemoteTaskFold,
  signal: AbortSignal,
  idleMs: number,
  host: string,
): Promise<void> {
  const iterator = stream[Symbol.asyncIterator]();
  try {
    for (;;) {
      const next = await untilAborted(iterator.next(), signal, idleMs);
      if (next.done) return;
      fold.apply(next.value);
      if (fold.outcome) return;
    }
  } catch (error) {
    if (error instanceof Idle || signal.aborted || error instanceof RemoteAgentError) throw error;
    throw new RemoteAgentError(`The remote agent at ${host} sent what Delegate could not read: ${String(error)}`, { cause: error });
  } finally {
    void Promise.resolve(iterator.return?.()).catch(() => {});
  }
}

/** `work`, unless the signal aborts first (AbortedError) or `idleMs` pass (Idle). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal, idleMs: number): Promise<T> {
  if (signal.aborted) return Promise.reject(new AbortedError(signal.reason));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => finish(() => reject(new AbortedError(signal.reason)));
    const timer = setTimeout(() => finish(() => reject(new Idle())), idleMs);
    const finish = (settle: () => void) => {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      settle();
    };
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (value) => finish(() => resolve(value)),
      (error: unknown) => finish(() => reject(error)),
    );
  });
}
