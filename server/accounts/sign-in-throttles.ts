import type { LimiterStore } from "@/server/limiter-store";
import { createLoginThrottle, createWindowThrottle, reserveAll, type Reservation, type Throttle } from "./login-throttle";

/**
 * Which keys a password guess is counted under. The lockout is per client and target, so
 * a stranger's failures lock the stranger's address, never the owner's; a slower throttle
 * over the target from every address still stops a guesser spread over many of them.
 */

/** A failure in every minute or so over an hour, from everywhere: far above a person's typos. */
const TARGET_FAILURES_PER_HOUR = 100;
const HOUR_MS = 3600_000;

/** The APP_PASSWORD gate: the gate itself is the one target. */
export interface GateThrottles {
  /** Per known device, or per address for a browser the gate does not know. */
  client: Throttle;
  /** The gate from every address the gate does not know. */
  gate: Throttle;
}

export function gateThrottles(store: LimiterStore): GateThrottles {
  return {
    client: createLoginThrottle({ name: "gate:client", store }),
    gate: createWindowThrottle({ name: "gate:all", maxFailures: TARGET_FAILURES_PER_HOUR, windowMs: HOUR_MS, store }),
  };
}

/**
 * A known device (a browser that logged in before, see known-device.ts) is throttled on
 * its own only: the gate-wide throttle, which strangers fill, does not lock it out.
 */
export function reserveGateLogin(throttles: GateThrottles, client: { device: string } | { address: string }): Promise<Reservation> {
  if ("device" in client) return reserveAll([[throttles.client, `device:${client.device}`]]);
  return reserveAll([
    [throttles.client, `address:${client.address}`],
    [throttles.gate, "gate"],
  ]);
}

/** Accounts: sign-in, sign-up with a taken email, password change; and new accounts and resets. */
export interface AccountThrottles {
  /** Per (address, account): the lockout. */
  pair: Throttle;
  /** Per address over every account (one address trying many accounts). */
  address: Throttle;
  /** Per account from every address. */
  account: Throttle;
  /** New accounts and reset attempts per address. */
  creation: Throttle;
}

export function accountThrottles(store: LimiterStore, given: { throttle?: Throttle; creationThrottle?: Throttle } = {}): AccountThrottles {
  // One given throttle stands for every sign-in key (tests: all requests from one address).
  if (given.throttle) {
    return { pair: given.throttle, address: given.throttle, account: given.throttle, creation: given.creationThrottle ?? given.throttle };
  }
  return {
    pair: createLoginThrottle({ name: "sign-in:pair", store }),
    // A team behind one address makes typos on many accounts; a sprayer makes many more.
    address: createWindowThrottle({ name: "sign-in:address", maxFailures: 30, windowMs: 15 * 60_000, store }),
    account: createWindowThrottle({ name: "sign-in:account", maxFailures: TARGET_FAILURES_PER_HOUR, windowMs: HOUR_MS, store }),
    // Generous for a team behind one address.
    creation: given.creationThrottle ?? createLoginThrottle({ name: "creation", maxFailures: 20, store }),
  };
}

export function reserveSignIn(throttles: AccountThrottles, address: string, email: string): Promise<Reservation> {
  return reserveAll([
    [throttles.pair, `${address} ${email}`],
    [throttles.address, address],
    [throttles.account, email],
  ]);
}
