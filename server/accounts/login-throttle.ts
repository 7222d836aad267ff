import { RateLimiterRes } from "rate-limiter-flexible";
import { memoryLimiterStore, type Limiter, type LimiterStore } from "@/server/limiter-store";

/**
 * Throttles password guesses per key (an address, a known device, an address and an
 * account; see login.ts and account-routes.ts), counted in a LimiterStore: this
 * process's memory, or Redis when scaled out, so a guesser spread over processes meets
 * one throttle. An attempt is reserved before the password is checked and settled once
 * it is, so guesses sent at once count against one budget: with `maxFailures` of them
 * unsettled, the next is refused without being checked. Past `maxFailures` failures the
 * key is locked, for `baseLockMs` doubling with each lock after up to `maxLockMs`, and
 * then gets one attempt at a time. A correct password settles its own attempt only: it
 * does not erase the failures of guesses sent beside it. A streak is forgotten
 * `forgetMs` after it began, and the lock count `forgetMs` after the last lock.
 */
export interface LoginAttempt {
  failed(): Promise<void>;
  passed(): Promise<void>;
  /** The password was never checked (a malformed body, another refusal). */
  dropped(): Promise<void>;
}

export type Reservation = LoginAttempt | { retryAfterMs: number };

export interface Throttle {
  /** An attempt to settle later, or how many milliseconds to wait before trying. */
  reserve(key: string): Promise<Reservation>;
}

/**
 * The account service's own hook, which answers at once. The app hands it `admitEvery`
 * and throttles sign-ins, sign-ups and resets in the account routes instead, through the
 * shared Throttles above (a synchronous answer cannot come from Redis).
 */
export interface LoginThrottle {
  reserve(key: string): { failed(): void; passed(): void; dropped(): void } | { retryAfterMs: number };
}

export const admitEvery: LoginThrottle = { reserve: () => ({ failed() {}, passed() {}, dropped() {} }) };

/** Attempts already in flight use the budget: a refusal for that lasts a moment. */
const IN_FLIGHT_RETRY_MS = 1000;

const refusalOf = (error: unknown): RateLimiterRes => {
  if (error instanceof RateLimiterRes) return error;
  throw error;
};

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

export function createLoginThrottle(
  options: { name?: string; maxFailures?: number; baseLockMs?: number; maxLockMs?: number; forgetMs?: number; store?: LimiterStore } = {},
): Throttle {
  const name = options.name ?? "login";
  const maxFailures = options.maxFailures ?? 5;
  const baseLockS = seconds(options.baseLockMs ?? 60_000);
  const maxLockS = seconds(options.maxLockMs ?? 15 * 60_000);
  const forgetS = seconds(options.forgetMs ?? 15 * 60_000);
  const store = options.store ?? memoryLimiterStore();
  // Reserved attempts plus failures: the one count every process checks and bumps at once.
  const tries = store.limiter({ name: `${name}:tries`, points: maxFailures, durationS: forgetS });
  const fails = store.limiter({ name: `${name}:fails`, points: maxFailures, durationS: forgetS });
  const lock = store.limiter({ name: `${name}:lock`, points: 1, durationS: maxLockS });
  // How many locks in a row: their length doubles, and past one the key gets one attempt at a time.
  const locks = store.limiter({ name: `${name}:locks`, points: Number.MAX_SAFE_INTEGER, durationS: forgetS });
  const count = async (limiter: Limiter, key: string) => (await limiter.get(key))?.consumedPoints ?? 0;

  const lockOut = async (key: string) => {
    const n = (await count(locks, key)) + 1;
    const lockS = Math.min(maxLockS, baseLockS * 2 ** (n - 1));
    await locks.set(key, n, Math.max(forgetS, lockS));
    await lock.block(key, lockS);
    await Promise.all([tries.delete(key), fails.delete(key)]);
  };

  return {
    async reserve(key) {
      const locked = await lock.get(key);
      if (locked && locked.msBeforeNext > 0) return { retryAfterMs: locked.msBeforeNext };
      // Once locked before, one attempt takes the whole budget.
      const cost = (await count(locks, key)) > 0 ? maxFailures : 1;
      try {
        await tries.consume(key, cost);
      } catch (error) {
        refusalOf(error);
        // A refused consume still counted: give it back, or refusals would fill the budget.
        await tries.reward(key, cost);
        return { retryAfterMs: IN_FLIGHT_RETRY_MS };
      }
      let settled = false;
      const settle = async (failed: boolean) => {
        if (settled) return;
        settled = true;
        if (!failed) {
          await tries.reward(key, cost);
          return;
        }
        const failures = (await fails.penalty(key, cost)).consumedPoints;
        if (failures >= maxFailures) await lockOut(key);
      };
      return { failed: () => settle(true), passed: () => settle(false), dropped: () => settle(false) };
    },
  };
}

/**
 * The slow throttle over a whole target (an account, the APP_PASSWORD gate) from every
 * address: `maxFailures` per window of `windowMs`, then refused until the window ends. It
 * stops a guesser spread over many addresses, each under its own lockout.
 */
export function createWindowThrottle(options: { name: string; maxFailures: number; windowMs: number; store?: LimiterStore }): Throttle {
  const store = options.store ?? memoryLimiterStore();
  const failures = store.limiter({ name: options.name, points: options.maxFailures, durationS: seconds(options.windowMs) });
  return {
    async reserve(key) {
      try {
        await failures.consume(key);
      } catch (error) {
        const refusal = refusalOf(error);
        await failures.reward(key);
        return { retryAfterMs: Math.max(IN_FLIGHT_RETRY_MS, refusal.msBeforeNext) };
      }
      let settled = false;
      const keep = async () => {
        settled = true;
      };
      const giveBack = async () => {
        if (settled) return;
        settled = true;
        await failures.reward(key);
      };
      return { failed: keep, passed: giveBack, dropped: giveBack };
    },
  };
}

/**
 * Reserves under several throttles at once (all must admit); the first refusal is the
 * answer and gives back what the others had reserved.
 */
export async function reserveAll(parts: readonly (readonly [Throttle, string])[]): Promise<Reservation> {
  const taken: LoginAttempt[] = [];
  for (const [throttle, key] of parts) {
    const got = await throttle.reserve(key);
    if ("retryAfterMs" in got) {
      await Promise.all(taken.map((attempt) => attempt.dropped()));
      return got;
    }
    taken.push(got);
  }
  const each = (settle: (attempt: LoginAttempt) => Promise<void>) => async () => void (await Promise.all(taken.map(settle)));
  return { failed: each((a) => a.failed()), passed: each((a) => a.passed()), dropped: each((a) => a.dropped()) };
}
