import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sweepCost } from "@/test/support/cluster/sweep-cost";
import { openTestDatabase, type TestDatabase } from "@/test/support/server/database";
import { mongoLeases, type LeaseStore } from "./lease";

let db: TestDatabase;
let leases: LeaseStore;

beforeAll(async () => {
  db = await openTestDatabase("turn-lease");
  leases = mongoLeases(db.models);
});
afterAll(() => db.close());

const at = (ms: number) => new Date(Date.UTC(2026, 11, 1, 12, 0, 0, ms));

describe("turn leases in MongoDB", () => {
  it("gives a chat's lease to exactly one of many processes taking it at once", async () => {
    const takes = await Promise.all(
      ["a", "b", "c", "d", "e"].map((instanceId) =>
        leases.take("race", { instanceId, turnId: `t-${instanceId}`, ownerId: "p", person: "p" }, 10_000, at(0)),
      ),
    );
    expect(takes.filter((t) => t !== null)).toHaveLength(1);
    const holder = await leases.get("race");
    expect(holder?.turnId).toBe(`t-${holder?.instanceId}`);
  });

  it("refuses a held lease, and hands it over once it has expired, with the chat's last sequence number", async () => {
    expect(await leases.take("s1", { instanceId: "a", turnId: "t1", ownerId: "p", person: "p" }, 1_000, at(0))).toEqual({
      previousSeq: null,
    });
    expect(await leases.renew("s1", "a", "t1", 1_000, 42, at(500))).toBe(true);
    expect(await leases.take("s1", { instanceId: "b", turnId: "t2", ownerId: "p", person: "p" }, 1_000, at(1_400))).toBeNull();
    expect(await leases.take("s1", { instanceId: "b", turnId: "t2", ownerId: "p", person: "p" }, 1_000, at(1_500))).toEqual({
      previousSeq: 42,
    });
    // The old holder cannot renew or release what is now b's.
    expect(await leases.renew("s1", "a", "t1", 1_000, 50, at(1_600))).toBe(false);
    expect(await leases.release("s1", "a", "t1", 50)).toBe(false);
    expect((await leases.get("s1"))?.instanceId).toBe("b");
  });

  it("is free again at once when its holder releases it, and only then", async () => {
    await leases.take("s2", { instanceId: "a", turnId: "t1", ownerId: "p", person: "p" }, 60_000, at(0));
    expect(await leases.release("s2", "b", "t1", 7)).toBe(false);
    expect(await leases.release("s2", "a", "t1", 7)).toBe(true);
    expect(await leases.take("s2", { instanceId: "c", turnId: "t3", ownerId: "p", person: "p" }, 60_000, at(1))).toEqual({
      previousSeq: 7,
    });
  });

  it("counts one person's running turns across processes (identities of one login together) and lists what expired", async () => {
    await leases.take("q1", { instanceId: "a", turnId: "x1", ownerId: "quota", person: "login:q" }, 1_000, at(0));
    await leases.take("q2", { instanceId: "b", turnId: "x2", ownerId: "quota-2", person: "login:q" }, 5_000, at(0));
    expect(await leases.countHeld("login:q", at(10))).toBe(2);
    expect(await leases.countHeld("quota", at(10))).toBe(0);
    expect(await leases.countHeld("login:q", at(2_000))).toBe(1);
    const expired = (await leases.expired(at(2_000))).filter((l) => l.ownerId === "quota");
    expect(expired.map((l) => l.sessionId)).toEqual(["q1"]);
    expect(await leases.leasedSessions()).toEqual(expect.arrayContaining(["q1", "q2"]));
    await leases.release("q1", "a", "x1", 0);
    expect(await leases.leasedSessions()).not.toContain("q1");
  });

  it("starts every process that opens a chat from the same number: the first one's", async () => {
    const [first, second] = await Promise.all([leases.ensure("fresh", 3_000_000), leases.ensure("fresh", 4_000_000)]);
    expect(first.seq).toBe(second.seq);
    expect(first.instanceId).toBeNull();
    expect(await leases.take("fresh", { instanceId: "a", turnId: "t", ownerId: "p", person: "p" }, 1_000)).toEqual({
      previousSeq: first.seq,
    });
  });

  it("lets exactly one sweeper take over an expired lease", async () => {
    await leases.take("dead", { instanceId: "gone", turnId: "td", ownerId: "p", person: "p" }, 1_000, at(0));
    const [lease] = (await leases.expired(at(5_000))).filter((l) => l.sessionId === "dead");
    const wins = await Promise.all(["b", "c", "d"].map((id) => leases.takeOver(lease!, id, 1_000, at(5_000))));
    expect(wins.filter(Boolean)).toHaveLength(1);
    expect(await leases.takeOver(lease!, "e", 1_000, at(5_001))).toBe(false);
  });

  describe("the sweep's cost with many chats", () => {
    let own: TestDatabase;
    let store: LeaseStore;
    beforeAll(async () => {
      own = await openTestDatabase("lease-sweep");
      store = mongoLeases(own.models);
    });
    afterAll(() => own.close());

    it("reads only held leases, however many chats were ever opened", async () => {
      await Promise.all(Array.from({ length: 60 }, (_, i) => store.ensure(`free-${i}`, i)));
      for (const i of [0, 1, 2]) {
        await store.take(`free-${i}`, { instanceId: "a", turnId: `t${i}`, ownerId: "p", person: "p" }, 1_000, at(0));
        await store.release(`free-${i}`, "a", `t${i}`, 10 + i);
      }
      await store.take("stalled-1", { instanceId: "gone", turnId: "s1", ownerId: "p", person: "p" }, 1_000, at(0));
      await store.take("stalled-2", { instanceId: "gone", turnId: "s2", ownerId: "p", person: "p" }, 1_000, at(0));
      await store.take("alive", { instanceId: "b", turnId: "s3", ownerId: "p", person: "p" }, 60_000, at(0));

      const free = await own.models.TurnLease.collection.find({ instanceId: null }).toArray();
      expect(free).toHaveLength(60);
      expect(free.filter((row) => "expiresAt" in row)).toEqual([]);
      // Three leases are held (two expired): whichever index the planner picks, it reads no free one.
      const cost = await sweepCost(own.models, at(5_000));
      expect(cost.returned).toBe(2);
      expect(cost.examined).toBeLessThanOrEqual(3);
      expect((await store.expired(at(5_000))).map((l) => l.sessionId).sort()).toEqual(["stalled-1", "stalled-2"]);
      expect((await store.leasedSessions()).sort()).toEqual(["alive", "stalled-1", "stalled-2"]);
      // A free lease still reads as free, with the number its last holder left.
      expect(await store.get("free-1")).toMatchObject({ instanceId: null, seq: 11, expiresAt: new Date(0) });
    });

    it("takes rows freed by an earlier version (expiry at the epoch) out of the range at its first sweep, as free leases", async () => {
      await own.models.TurnLease.collection.insertMany(
        Array.from({ length: 40 }, (_, i) => ({
          _id: `old-${i}` as never,
          instanceId: null,
          turnId: null,
          ownerId: null,
          expiresAt: new Date(0),
          seq: 100 + i,
        })),
      );
      const legacy = mongoLeases(own.models);
      const stale = { _id: /^old-/, expiresAt: { $exists: true } };
      expect(await own.models.TurnLease.countDocuments(stale)).toBe(40);
      expect((await legacy.expired(at(5_000))).map((l) => l.sessionId).sort()).toEqual(["stalled-1", "stalled-2"]);
      expect(await own.models.TurnLease.countDocuments(stale)).toBe(0);
      expect((await sweepCost(own.models, at(5_000))).examined).toBeLessThanOrEqual(3);
      expect(await legacy.get("old-3")).toMatchObject({ instanceId: null, seq: 103 });
      expect(await legacy.take("old-3", { instanceId: "c", turnId: "t", ownerId: "p", person: "p" }, 1_000, at(6_000))).toEqual({
        previousSeq: 103,
      });
      expect((await legacy.get("old-3"))?.expiresAt).toEqual(at(7_000));
    });
  });
});
