import { mongo, type Collection } from "mongoose";

/**
 * Rows that carry their own expiry date (sign-in sessions and the like) and must leave
 * their collection once it has passed. MongoDB (and the project's test server) removes
 * them itself through a TTL index. FerretDB 1.x has no TTL indexes (it refuses the
 * `expireAfterSeconds` option as not implemented), so there the same index is made
 * without the option and `sweep` deletes the expired rows instead: its owner calls it on
 * every write that adds a row, so the collection holds at most the live rows plus those
 * expired since the last addition, with no timer to keep or stop.
 *
 * Either way the owner still refuses an expired row on read: a TTL monitor runs only
 * about once a minute.
 */
export type ExpiryMode =
  /** The server's TTL monitor deletes expired rows. */
  | "ttl"
  /** The server has no TTL indexes: `sweep` deletes expired rows. */
  | "sweep-on-write";

export interface ExpiringRows {
  /** Creates the index on first use; later calls answer from memory. */
  mode(): Promise<ExpiryMode>;
  /** Deletes the rows expired by now where the server does not; a no-op where it does. */
  sweep(): Promise<void>;
}

/** MongoDB's "NotImplemented": FerretDB's answer to an index option it lacks. */
const NOT_IMPLEMENTED = 238;

/**
 * An ascending index on `field` that expires rows at the date it holds: a TTL index where
 * the server has them, else a plain one (which the sweep's range uses). Other refusals
 * (a conflicting index of the same name, an outage) are thrown as they are.
 */
export async function ensureExpiryIndex(collection: Collection, field: string): Promise<ExpiryMode> {
  try {
    await collection.createIndex({ [field]: 1 }, { expireAfterSeconds: 0 });
    return "ttl";
  } catch (error) {
    if (!(error instanceof mongo.MongoServerError && error.code === NOT_IMPLEMENTED)) throw error;
  }
  await collection.createIndex({ [field]: 1 });
  return "sweep-on-write";
}

export function expiringRows(collection: Collection, field: string, now: () => number = Date.now): ExpiringRows {
  let ensured: Promise<ExpiryMode> | undefined;
  const mode = () => {
    // A failed attempt (say, the database was down) is tried again on the next call.
    ensured ??= ensureExpiryIndex(collection, field).catch((error: unknown) => {
      ensured = undefined;
      throw error;
    });
    return ensured;
  };
  return {
    mode,
    async sweep() {
      if ((await mode()) === "ttl") return;
      await collection.deleteMany({ [field]: { $lte: new Date(now()) } });
    },
  };
}
