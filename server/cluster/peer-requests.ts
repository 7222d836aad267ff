import type { Logger } from "@/lib/log";
import { toAppError } from "@/server/errors";
import type { AppServer } from "@/server/realtime/types";
import type { MirrorSnapshot } from "@/server/sessions/drone-session";
import type { SessionRegistry } from "@/server/sessions/registry";
import type { Lease } from "./lease";
import type { RoutedAnswer, RoutedCommand } from "./protocol";

/**
 * The requests processes send each other through Socket.IO's adapter (`protocol.ts`),
 * asked and answered: a command for the turn a process runs, the snapshot of a running
 * turn a mirror starts from, and an account's turns to stop everywhere.
 */

/** How long a process waits for the others' answers (a dead one is counted until the adapter's heartbeat drops it). */
export const ANSWER_TIMEOUT_MS = 5_000;

/** Whether another process holds the lease and its time has not run out (a lapsed one is the sweeper's). */
export function heldElsewhere(lease: Lease, instanceId: string): boolean {
  return lease.instanceId !== null && lease.instanceId !== instanceId && lease.expiresAt.getTime() > Date.now();
}

/** The answer of the process `target` to a command for the turn it runs; `handled: false` when none acted on it. */
export async function askOwner(io: AppServer, target: string, sessionId: string, command: RoutedCommand): Promise<RoutedAnswer> {
  const answers = await ask<RoutedAnswer>((ack) => io.serverSideEmit("cluster:command", { target, sessionId, command }, ack));
  return answers.find((a) => a.handled) ?? { handled: false };
}

/** The running turn of the chat as the process running it has it; null when none answered. */
export async function askSnapshot(io: AppServer, sessionId: string): Promise<MirrorSnapshot | null> {
  const answers = await ask<MirrorSnapshot | null>((ack) => io.serverSideEmit("cluster:snapshot", { sessionId }, ack));
  return answers.find((a) => a !== null) ?? null;
}

/** Every other process stops `ownerId`'s turns (an account disabled or deleted); no answer awaited. */
export function tellCancelOwner(io: AppServer, ownerId: string): void {
  io.serverSideEmit("cluster:cancel-owner", { ownerId });
}

/** Answers the other processes' requests from this process's sessions. */
export function answerPeers(io: AppServer, deps: { instanceId: string; registry: SessionRegistry; log?: Logger }): void {
  const { instanceId, registry, log } = deps;
  io.on("cluster:snapshot", ({ sessionId }, reply) => reply(registry.peekReady(sessionId)?.mirrorSnapshot() ?? null));
  io.on("cluster:cancel-owner", ({ ownerId }) => registry.cancelTurns(ownerId));
  io.on("cluster:command", ({ target, sessionId, command }, reply) => {
    if (target !== instanceId) return reply({ handled: false });
    void actOnCommand(registry, sessionId, command, log).then(reply);
  });
}

/** A routed command, run on the turn this process runs; its outcome as the asker reports it to the person. */
async function actOnCommand(registry: SessionRegistry, sessionId: string, command: RoutedCommand, log?: Logger): Promise<RoutedAnswer> {
  const session = registry.peekReady(sessionId);
  if (!session?.runningTurnId) return { handled: false };
  try {
    const result = await session.command(command);
    return result ? { handled: true, ok: true, result } : { handled: true, ok: true };
  } catch (error) {
    const known = toAppError(error);
    if (known) return { handled: true, ok: false, code: known.code, message: known.message };
    log?.error("a routed command failed", { error: error instanceof Error ? error.stack : String(error) });
    return { handled: true, ok: false, code: "internal", message: "Something went wrong on the server; nothing was changed." };
  }
}

/** Every other process's answers (those that answered in time). */
function ask<T>(emit: (ack: (error: Error | null, answers: T[]) => void) => void): Promise<T[]> {
  return new Promise((resolve) => {
    const guard = setTimeout(() => resolve([]), ANSWER_TIMEOUT_MS + 1_000);
    emit((_error, answers) => {
      clearTimeout(guard);
      resolve(answers ?? []);
    });
  });
}
