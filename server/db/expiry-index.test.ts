import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { openTestDatabase, type TestDatabase } from "@/test/support/server/database";
import { ensureExpiryIndex, expiringRows, type ExpiryMode } from "./expiry-index";

/**
 * Expired rows leave their collection on every database the tests run on: through the
 * server's TTL index where it has one, through the sweep on write where it has none
 * (FerretDB 1.x). Each run checks the branch its server takes.
 */
const EXPECTED_MODE: Record<ReturnType<typeof inject<"databaseServer">>, ExpiryMode> = {
  "mongo-java-server": "ttl",
  external: "ttl",
  ferretdb: "sweep-on-write",
};

let db: TestDatabase;
beforeAll(async () => {
  db = await openTestDatabase("expiry");
});
afterAll(async () => {
  await db?.close();
});

const DAY = 24 * 3600_000;
// The real clock: a TTL monitor, where the server runs one, goes by it too.
const NOW = Date.now();

async function seed(name: string) {
  const collection = db.connection.collection(name);
  await collection.insertMany([
    { _id: "gone-long-ago", expiresAt: new Date(NOW - DAY) } as never,
    { _id: "gone-just-now", expiresAt: new Date(NOW) } as never,
    { _id: "live", expiresAt: new Date(NOW + DAY) } as never,
  ]);
  return collection;
}

async function idsIn(name: string): Promise<string[]> {
  const rows = await db.connection
    .collection(name)
    .find({}, { sort: { _id: 1 } })
    .toArray();
  return rows.map((r) => String(r._id));
}

describe("ensureExpiryIndex", () => {
  it(`makes the index this server supports (${inject("databaseServer")}: ${EXPECTED_MODE[inject("databaseServer")]})`, async () => {
    const collection = db.connection.collection("expiry_index");
    const mode = await ensureExpiryIndex(collection, "expiresAt");
    expect(mode).toBe(EXPECTED_MODE[inject("databaseServer")]);
    const index = (await collection.indexes()).find((i) => JSON.stringify(i.key) === '{"expiresAt":1}');
    expect(index, "an index on expiresAt for the expiry range").toBeDefined();
    if (mode === "ttl") expect(index!.expireAfterSeconds).toBe(0);
    else expect(index!.expireAfterSeconds).toBeUndefined();
    // Made again at every start: the second call finds the same index.
    await expect(ensureExpiryIndex(collection, "expiresAt")).resolves.toBe(mode);
  });
});

describe("expiringRows", () => {
  it("leaves expired rows to the server's TTL monitor, or sweeps them itself where the server has none", async () => {
    await seed("expiring_rows");
    const rows = expiringRows(db.connection.collection("expiring_rows"), "expiresAt", () => NOW);
    await rows.sweep();
    // Under a TTL index the server's monitor removes the expired ones in its own time
    // (about once a minute); the sweep removes them at once.
    if ((await rows.mode()) === "sweep-on-write") expect(await idsIn("expiring_rows")).toEqual(["live"]);
    else expect(await idsIn("expiring_rows")).toContain("live");
  });
});
