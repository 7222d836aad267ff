import { AppError } from "@/lib/contracts";
import type { Logger } from "@/lib/log";
import type { DroneCluster } from "@/server/sessions/drone-session";
import { tooManyTurns } from "@/server/sessions/person-limits";
import type { LeaseStore } from "./lease";

/**
 * The leases of the turns this process runs: taken when a turn starts (refused, `busy`,
 * while another process runs one in the chat), renewed every third of a lease with the
 * chat's last number so the next holder continues it, and released when the turn ends.
 * A renewal that finds the lease gone (another process swept it after a stall) stops the
 * turn: two processes must never both run one chat.
 */
export class LeaseKeeper {
  private readonly renewals = new Set<NodeJS.Timeout>();

  constructor(
    private readonly leases: LeaseStore,
    private readonly instanceId: string,
    private readonly leaseMs: number,
    private readonly log?: Logger,
  ) {}

  readonly claim: DroneCluster["claim"] = async (sessionId, turnId, holder, currentSeq, lost) => {
    const { ownerId, person, maxRunning } = holder;
    const taken = await this.leases.take(sessionId, { instanceId: this.instanceId, turnId, ownerId, person }, this.leaseMs);
    if (!taken) throw new AppError("busy", "A turn is already running in this chat. Stop it or wait for it to finish.");
    // Counted once the lease is held, so two processes starting at the same moment both
    // see both turns: the cap is never passed (at worst both refuse, and a resend starts).
    if (person !== null && maxRunning !== undefined) {
      const held = await this.leases.countHeld(person).catch(async (error: unknown) => {
        await this.leases.release(sessionId, this.instanceId, turnId, taken.previousSeq ?? 0).catch(() => undefined);
        throw error;
      });
      if (held > maxRunning) {
        await this.leases.release(sessionId, this.instanceId, turnId, taken.previousSeq ?? 0);
        throw tooManyTurns(maxRunning);
      }
    }
    const timer = setInterval(
      () => {
        this.leases.renew(sessionId, this.instanceId, turnId, this.leaseMs, currentSeq()).then(
          (held) => {
            if (held) return;
            this.log?.warn("lost a turn's lease (another process swept it); stopping the turn", { sessionId, turnId });
            this.stopRenewing(timer);
            lost();
          },
          // MongoDB away: the lease runs on; if it expires meanwhile, another process sweeps.
          () => undefined,
        );
      },
      Math.max(50, Math.floor(this.leaseMs / 3)),
    );
    timer.unref();
    this.renewals.add(timer);
    return {
      previousSeq: taken.previousSeq,
      release: async (seq) => {
        this.stopRenewing(timer);
        await this.leases
          .release(sessionId, this.instanceId, turnId, seq)
          .catch((error: unknown) =>
            this.log?.warn("could not release a turn's lease; it will expire", { sessionId, error: String(error) }),
          );
      },
    };
  };

  /** Stops every renewal (the process is stopping): the leases it still holds expire. */
  stop(): void {
    for (const timer of this.renewals) clearInterval(timer);
    this.renewals.clear();
  }

  private stopRenewing(timer: NodeJS.Timeout): void {
    clearInterval(timer);
    this.renewals.delete(timer);
  }
}
