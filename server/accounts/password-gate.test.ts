import { describe, expect, it } from "vitest";
import { createPasswordGate } from "./password-gate";

describe("password gate", () => {
  const clock = { t: 1_800_000_000_000 };
  const gate = createPasswordGate({ password: "correct horse", secret: "s".repeat(32), ttlMs: 1000, now: () => clock.t });

  it("accepts the password and nothing else", () => {
    expect(gate.checkPassword("correct horse")).toBe(true);
    expect(gate.checkPassword("correct horse ")).toBe(false);
    expect(gate.checkPassword("")).toBe(false);
  });

  it("issues cookies that verify until they expire, each for a session of its own", () => {
    const cookie = gate.issue();
    const session = gate.verify(cookie);
    expect(session).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(gate.verify(gate.issue())).not.toBe(session);
    clock.t += 1001;
    expect(gate.verify(cookie)).toBeNull();
  });

  it("ends one session on revoke, and knows none it did not issue (a restart logs out)", () => {
    const [one, two] = [gate.issue(), gate.issue()];
    gate.revoke(gate.verify(one)!);
    expect(gate.verify(one)).toBeNull();
    expect(gate.verify(two)).not.toBeNull();
    const restarted = createPasswordGate({ password: "correct horse", secret: "s".repeat(32), ttlMs: 1000, now: () => clock.t });
    expect(restarted.verify(two)).toBeNull();
  });

  it("rejects forged, tampered and foreign cookies", () => {
    const cookie = gate.issue();
    const [session, expiry, mac] = cookie.split(".");
    expect(gate.verify(`${session}.${Number(expiry) + 1_000_000}.${mac}`)).toBeNull();
    expect(gate.verify(`${session}.${expiry}.${"A".repeat(43)}`)).toBeNull();
    expect(gate.verify(`${"A".repeat(22)}.${expiry}.${mac}`)).toBeNull();
    expect(gate.verify(undefined)).toBeNull();
    expect(gate.verify("garbage")).toBeNull();
    const otherPassword = createPasswordGate({ password: "another", secret: "s".repeat(32), now: () => clock.t });
    expect(otherPassword.verify(cookie)).toBeNull();
  });
});
