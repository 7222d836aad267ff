import { afterAll, beforeAll, describe, expect, it, inject } from "vitest";
import { openTestDatabase, type TestDatabase } from "@/test/support/server/database";
import { createPasswordGate } from "./password-gate";

let db: TestDatabase;
const clock = { t: 1_800_000_000_000 };
const gateOn = (password = "correct horse", ttlMs = 1000) =>
  createPasswordGate({ password, secret: "s".repeat(32), sessions: db.models.LoginSession, ttlMs, now: () => clock.t });

beforeAll(async () => {
  db = await openTestDatabase("password_gate");
});
afterAll(async () => {
  await db?.close();
});

describe("password gate", () => {
  it("accepts the password and nothing else", () => {
    const gate = gateOn();
    expect(gate.checkPassword("correct horse")).toBe(true);
    expect(gate.checkPassword("correct horse ")).toBe(false);
    expect(gate.checkPassword("")).toBe(false);
  });

  it("issues cookies that verify until they expire, each for a session of its own", async () => {
    const gate = gateOn();
    const cookie = await gate.issue();
    const session = await gate.verify(cookie);
    expect(session).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(await gate.verify(await gate.issue())).not.toBe(session);
    clock.t += 1001;
    expect(await gate.verify(cookie)).toBeNull();
  });

  it("stores only a digest of the session id, with an expiry the database removes it by", async () => {
    const gate = gateOn();
    const session = (await gate.verify(await gate.issue()))!;
    const stored = await db.models.LoginSession.find({}).lean();
    expect(stored.some((s) => s._id === session)).toBe(false);
    expect(stored.every((s) => /^[0-9a-f]{64}$/.test(s._id) && s.expiresAt instanceof Date)).toBe(true);
    const index = (await db.models.LoginSession.listIndexes()).find((i) => i.key?.expiresAt === 1);
    // A TTL index where the server has them; FerretDB 1.x has none, and new logins sweep instead.
    if (inject("databaseServer") === "ferretdb") expect(index).toBeDefined();
    else expect(index?.expireAfterSeconds).toBe(0);
  });

  it("shares sessions between gates on one database: a logout on one ends the session on the other", async () => {
    const [a, b] = [gateOn(), gateOn()];
    const [one, two] = [await a.issue(), await a.issue()];
    expect(await b.verify(one)).not.toBeNull();
    await b.revoke((await b.verify(one))!);
    expect(await a.verify(one)).toBeNull();
    expect(await a.verify(two)).not.toBeNull();
  });

  it("rejects forged, tampered and foreign cookies, and every cookie of an old password", async () => {
    const gate = gateOn();
    const cookie = await gate.issue();
    const [session, expiry, mac] = cookie.split(".");
    expect(await gate.verify(`${session}.${Number(expiry) + 1_000_000}.${mac}`)).toBeNull();
    expect(await gate.verify(`${session}.${expiry}.${"A".repeat(43)}`)).toBeNull();
    expect(await gate.verify(`${"A".repeat(22)}.${expiry}.${mac}`)).toBeNull();
    expect(await gate.verify(undefined)).toBeNull();
    expect(await gate.verify("garbage")).toBeNull();
    expect(await gateOn("another").verify(cookie)).toBeNull();
  });
});
