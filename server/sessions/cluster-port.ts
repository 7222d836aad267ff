import type { ChatTurn, SessionEvent } from "@/lib/contracts";

/**
 * What a chat's session needs of the scale-out (server/cluster, docs/architecture.md
 * "Cluster"), present only with REDIS_URL: a turn starts only once this process holds the
 * chat's lease, and every relayed event is also published for the viewers on other
 * processes.
 */
export interface DroneCluster {
  /**
   * Takes the chat's turn lease (`busy` when another process runs a turn in it) and keeps
   * it renewed until `release`; `previousSeq` is where the chat's numbering stands (null:
   * never leased, numbers must start past every block reserved so far). With a cap, the
   * lease is given back and the claim refused (`limit_reached`) when the person then holds
   * more than `maxRunning` leases, in every process together.
   */
  claim(sessionId: string, turnId: string, holder: LeaseHolder, currentSeq: () => number, lost: () => void): Promise<TurnLease>;
  publish(event: SessionEvent): void;
}

/** Whose turn takes the lease: the chat's owner, `person` (see `personKey`; null for a turn started for no one) and their cap. */
export interface LeaseHolder {
  ownerId: string;
  person: string | null;
  maxRunning?: number;
}

/** A chat's turn lease as its holder has it. */
export interface TurnLease {
  previousSeq: number | null;
  release(seq: number): Promise<void>;
}

/** A running turn as another process sees it: consistent with `seq` (for a mirror's resync). */
export interface MirrorSnapshot {
  turn: ChatTurn | null;
  seq: number;
}
