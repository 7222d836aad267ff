import type { Models } from "@/models";

/**
 * One owner per running turn: a lease document per chat in MongoDB. Every
 * change is one atomic findOneAndUpdate/updateOne whose filter states who may make it,
 * so two processes can never both hold a chat, and only the holder renews or releases.
 */
export interface Lease {
  sessionId: string;
  instanceId: string | null;
  turnId: string | null;
  /** The chat's owner (the sweeper opens the chat as them). */
  ownerId: string | null;
  /** Whose running-turn cap the turn counts against (see `personKey`); null for a turn started for no one. */
  person: string | null;
  /** When the holder's time runs out; a free lease reads as the epoch (long past). */
  expiresAt: Date;
  /** The last sequence number the holder reported (at release, or at its last renewal). */
  seq: number;
}

export interface LeaseTake {
  /** The chat's last sequence number from the lease before, null when the chat never had one. */
  previousSeq: number | null;
}

export interface LeaseStore {
  /** Takes the chat's lease for `turnId` if it is free or expired; null when another process holds it. */
  take(
    sessionId: string,
    holder: { instanceId: string; turnId: string; ownerId: string; person: string | null },
    leaseMs: number,
    now?: Date,
  ): Promise<LeaseTake | null>;
  /** Extends the holder's lease; false when it is no longer theirs (swept after a stall). */
  renew(sessionId: string, instanceId: string, turnId: string, leaseMs: number, seq: number, now?: Date): Promise<boolean>;
  /** Frees the lease, recording the last sequence number; only the holder can. */
  release(sessionId: string, instanceId: string, turnId: string, seq: number): Promise<boolean>;
  /** The chat's lease document, if it ever had one. */
  get(sessionId: string): Promise<Lease | null>;
  /**
   * The chat's lease document, created free with `seq` when it has none, so every process
   * that opens the chat starts from the same number (the first one to ask sets it).
   */
  ensure(sessionId: string, seq: number): Promise<Lease>;
  /** Leases held (not expired, not released) by `person`'s turns, across processes. */
  countHeld(person: string, now?: Date): Promise<number>;
  /**
   * Chats whose lease names a holder, alive or expired: a start-up sweep leaves their turns
   * to the holder or to the sweeper, which tells the viewers.
   */
  leasedSessions(): Promise<string[]>;
  /** Leases still naming a holder whose time has run out (that process died or stalled). */
  expired(now?: Date): Promise<Lease[]>;
  /** Takes over an expired lease exactly as `expired` returned it; false when someone else got there first. */
  takeOver(lease: Lease, instanceId: string, leaseMs: number, now?: Date): Promise<boolean>;
}

interface LeaseRow {
  _id: string;
  instanceId: string | null;
  turnId: string | null;
  ownerId: string | null;
  person?: string | null;
  /** Only on a held lease; rows written before free leases dropped it carry the epoch. */
  expiresAt?: Date | null;
  seq?: number;
}

const toLease = (row: LeaseRow): Lease => ({
  sessionId: row._id,
  instanceId: row.instanceId,
  turnId: row.turnId,
  ownerId: row.ownerId,
  person: row.person ?? null,
  expiresAt: row.expiresAt ?? new Date(0),
  seq: row.seq ?? 0,
});

/**
 * A free lease carries no `expiresAt`, so it stays out of the `{expiresAt: 1}` range the
 * sweeper reads every third of a lease (documents without the field sit outside every
 * date range, and no index option is needed: FerretDB 1.x refuses sparse and partial
 * ones). Rows freed before that carried the epoch; this turns them into the same shape.
 */
/** The sweeper's query (exported so its cost can be measured on the very filter). */
export const expiredFilter = (now: Date) => ({ instanceId: { $ne: null }, expiresAt: { $lte: now } });
export const EXPIRED_BATCH = 100;

const FREE_WITH_EXPIRY = { instanceId: null, expiresAt: { $exists: true } };
const UNSET_EXPIRY = { $unset: { expiresAt: "" } } as const;

/** MongoDB's duplicate-key error: two upserts raced and the other one inserted first. */
const isDuplicateKey = (error: unknown) => typeof error === "object" && error !== null && (error as { code?: unknown }).code === 11000;

export function mongoLeases(models: Pick<Models, "TurnLease">): LeaseStore {
  const { TurnLease } = models;
  // Once per process, before its first sweep; a failure (MongoDB away) is tried again at the next.
  let migrated: Promise<unknown> | undefined;
  const migrateFreeRows = () => {
    migrated ??= TurnLease.updateMany(FREE_WITH_EXPIRY, UNSET_EXPIRY).catch((error: unknown) => {
      migrated = undefined;
      throw error;
    });
    return migrated;
  };
  return {
    async take(sessionId, holder, leaseMs, now = new Date()) {
      try {
        const before = await TurnLease.findOneAndUpdate(
          { _id: sessionId, $or: [{ instanceId: null }, { expiresAt: { $lte: now } }] },
          {
            $set: {
              instanceId: holder.instanceId,
              turnId: holder.turnId,
              ownerId: holder.ownerId,
              person: holder.person,
              expiresAt: new Date(now.getTime() + leaseMs),
            },
          },
          { upsert: true, returnDocument: "before" },
        ).lean<LeaseRow>();
        return { previousSeq: before ? (before.seq ?? 0) : null };
      } catch (error) {
        // The filter did not match an existing document, so the upsert tried to insert a second one with the same id: held.
        if (isDuplicateKey(error)) return null;
        throw error;
      }
    },

    async renew(sessionId, instanceId, turnId, leaseMs, seq, now = new Date()) {
      const result = await TurnLease.updateOne(
        { _id: sessionId, instanceId, turnId },
        { $set: { expiresAt: new Date(now.getTime() + leaseMs), seq } },
      );
      return result.matchedCount === 1;
    },

    async release(sessionId, instanceId, turnId, seq) {
      const result = await TurnLease.updateOne(
        { _id: sessionId, instanceId, turnId },
        { $set: { instanceId: null, turnId: null, ownerId: null, person: null, seq }, ...UNSET_EXPIRY },
      );
      return result.matchedCount === 1;
    },

    async get(sessionId) {
      const row = await TurnLease.findById(sessionId).lean<LeaseRow>();
      return row ? toLease(row) : null;
    },

    async ensure(sessionId, seq) {
      for (let attempt = 0; ; attempt++) {
        try {
          const row = await TurnLease.findOneAndUpdate(
            { _id: sessionId },
            { $setOnInsert: { instanceId: null, turnId: null, ownerId: null, person: null, seq } },
            { upsert: true, returnDocument: "after" },
          ).lean<LeaseRow>();
          return toLease(row!);
        } catch (error) {
          // Two first opens raced: the other inserted it; read it on the next round.
          if (!isDuplicateKey(error) || attempt > 2) throw error;
        }
      }
    },

    countHeld: (person, now = new Date()) => TurnLease.countDocuments({ person, instanceId: { $ne: null }, expiresAt: { $gt: now } }),

    async leasedSessions() {
      const rows = await TurnLease.find({ instanceId: { $ne: null } }, { _id: 1 }).lean<{ _id: string }[]>();
      return rows.map((row) => row._id);
    },

    async expired(now = new Date()) {
      await migrateFreeRows();
      const rows = await TurnLease.find(expiredFilter(now)).limit(EXPIRED_BATCH).lean<LeaseRow[]>();
      return rows.map(toLease);
    },

    async takeOver(lease, instanceId, leaseMs, now = new Date()) {
      const result = await TurnLease.updateOne(
        { _id: lease.sessionId, instanceId: lease.instanceId, turnId: lease.turnId, expiresAt: { $lte: now } },
        { $set: { instanceId, expiresAt: new Date(now.getTime() + leaseMs) } },
      );
      return result.modifiedCount === 1;
    },
  };
}
