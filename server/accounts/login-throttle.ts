/**
 * Throttles APP_PASSWORD guesses per key (a client address, or a known device; see
 * known-device.ts). An attempt is reserved before its body is read and settled once the
 * password is checked, so guesses sent at once count against one budget: with
 * `maxFailures` of them unsettled, the next is refused without being checked. Past
 * `maxFailures` failures the key is locked, for `baseLockMs` doubling with each further
 * failure up to `maxLockMs`, and then gets one attempt at a time. A correct password
 * settles its own attempt only: it does not erase the failures of guesses sent beside it.
 * A streak is forgotten after `forgetMs` without a failure.
 */
export interface LoginAttempt {
  failed(): void;
  passed(): void;
  /** The password was never checked (a malformed body). */
  dropped(): void;
}

export interface LoginThrottle {
  /** An attempt to settle later, or how many milliseconds to wait before trying. */
  reserve(key: string): LoginAttempt | { retryAfterMs: number };
}

interface Streak {
  failures: number;
  inFlight: number;
  lastFailure: number;
  lockedUntil: number;
}

/** Bounds memory under a flood of distinct addresses. */
const MAX_KEYS = 10_000;

export function createLoginThrottle(
  options: { maxFailures?: number; baseLockMs?: number; maxLockMs?: number; forgetMs?: number; now?: () => number } = {},
): LoginThrottle {
  const maxFailures = options.maxFailures ?? 5;
  const baseLockMs = options.baseLockMs ?? 60_000;
  const maxLockMs = options.maxLockMs ?? 15 * 60_000;
  const forgetMs = options.forgetMs ?? 15 * 60_000;
  const now = options.now ?? Date.now;
  const streaks = new Map<string, Streak>();

  const streakOf = (key: string): Streak => {
    let streak = streaks.get(key);
    if (streak && streak.inFlight === 0 && now() >= streak.lockedUntil && now() - streak.lastFailure > forgetMs) streak = undefined;
    if (!streak) {
      streak = { failures: 0, inFlight: 0, lastFailure: 0, lockedUntil: 0 };
      streaks.set(key, streak);
      if (streaks.size > MAX_KEYS) streaks.delete(streaks.keys().next().value!);
    }
    return streak;
  };

  return {
    reserve(key) {
      const streak = streakOf(key);
      const t = now();
      if (t < streak.lockedUntil) return { retryAfterMs: streak.lockedUntil - t };
      // Below the limit, the unspent budget; past it, one attempt at a time.
      const budget = streak.failures < maxFailures ? maxFailures - streak.failures : 1;
      if (streak.inFlight >= budget) return { retryAfterMs: 1000 };
      streak.inFlight++;
      let settled = false;
      const settle = (failed: boolean) => {
        if (settled) return;
        settled = true;
        streak.inFlight--;
        if (!failed) return;
        streak.failures++;
        streak.lastFailure = now();
        const over = streak.failures - maxFailures;
        if (over >= 0) streak.lockedUntil = now() + Math.min(maxLockMs, baseLockMs * 2 ** over);
      };
      return { failed: () => settle(true), passed: () => settle(false), dropped: () => settle(false) };
    },
  };
}
