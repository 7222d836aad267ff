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

  it("issues cookies that verify until they expire", () => {
    const cookie = gate.issue();
    expect(gate.verify(cookie)).toBe(true);
    clock.t += 1001;
    expect(gate.verify(cookie)).toBe(false);
  });

  it("rejects forged, tampered and foreign cookies", () => {
    const cookie = gate.issue();
    const [expiry, mac] = cookie.split(".");
    expect(gate.verify(`${Number(expiry) + 1_000_000}.${mac}`)).toBe(false);
    expect(gate.verify(`${expiry}.${"A".repeat(43)}`)).toBe(false);
    expect(gate.verify(undefined)).toBe(false);
    expect(gate.verify("garbage")).toBe(false);
    const otherPassword = createPasswordGate({ password: "another", secret: "s".repeat(32), now: () => clock.t });
    expect(otherPassword.verify(cookie)).toBe(false);
  });
});
