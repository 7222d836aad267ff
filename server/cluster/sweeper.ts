import { AppError } from "@/lib/contracts";
import type { Logger } from "@/lib/log";
import type { ChatStore } from "@/server/data/store";
import type { SessionRegistry } from "@/server/sessions/registry";
import type { Lease, LeaseStore } from "./lease";
import type { ClusterObserver } from "./observer";
import type { StreamTurn } from "./stream-turn";

/**
 * The sweeper of every cluster member: every third of a lease it looks for
 * leases whose holder stopped renewing them (the process died), takes each over
 * atomically (so exactly one member acts) and ends that turn as `ghost_sweep`: stored,
 * then told to the viewers with the chat's next numbers, then the lease is freed.
 */
export interface Sweeper {
  stop(): void;
}

export interface SweeperDeps {
  leases: LeaseStore;
  store: ChatStore;
  registry: SessionRegistry;
  instanceId: string;
  leaseMs: number;
  /** The turn as the chat's event stream holds it (more than MongoDB after a death), if it still can. */
  recover?: (sessionId: string, turnId: string) => Promise<StreamTurn | null>;
  log?: Logger;
  observe?: ClusterObserver;
}

export function startSweeper(deps: SweeperDeps): Sweeper {
  let sweeping = false;
  let stopped = false;
  const { leases, registry, instanceId, leaseMs, log } = deps;

  const sweep = async () => {
    if (sweeping || stopped) return;
    sweeping = true;
    try {
      for (const lease of await leases.expired()) {
        // A process that mirrors the chat ends the turn with the next numbers its viewers
        // expect; the others give it one lease period's head start, then step in.
        if (!registry.peekReady(lease.sessionId) && Date.now() - lease.expiresAt.getTime() < leaseMs) continue;
        if (!(await leases.takeOver(lease, instanceId, leaseMs))) continue;
        deps.observe?.takeover();
        await endGhost(lease).catch((error: unknown) =>
          log?.error("could not end a dead process's turn", { sessionId: lease.sessionId, error: String(error) }),
        );
      }
    } catch {
      // MongoDB away: the next round tries again.
    } finally {
      sweeping = false;
    }
  };

  const endGhost = async (lease: Lease) => {
    const { sessionId, turnId, ownerId } = lease;
    if (!turnId) return;
    let seq = lease.seq;
    try {
      const summary = await deps.store.ownedSession(ownerId ?? "", sessionId);
      const session = await registry.open(summary, ownerId ?? "");
      const recovered = await deps.recover?.(sessionId, turnId).catch(() => null);
      seq = await session.endGhost(turnId, lease.seq, new Date(), recovered ?? undefined);
      await session.drain();
    } catch (error) {
      // The chat was deleted meanwhile: nothing to end, the lease just goes.
      if (!(error instanceof AppError && error.code === "not_found")) throw error;
    }
    await leases.release(sessionId, instanceId, turnId, seq);
    log?.warn("Ended a turn left running by a process that stopped renewing its lease (ghost sweep)", {
      sessionId,
      turnId,
      deadInstance: lease.instanceId,
    });
  };

  const timer = setInterval(() => void sweep(), Math.max(100, Math.floor(leaseMs / 3)));
  timer.unref();
  return {
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}
