/**
 * A run's watchdog that can be held: while a person is asked to approve a call, the time
 * spent waiting is theirs, not the run's, so every watchdog on the path from that call to
 * the master stops counting (the approval has its own limit, APPROVAL_TIMEOUT_MS). Holds
 * nest: with two approvals waiting, the clock runs again only when both have ended.
 */
export class Watchdog {
  private timer: NodeJS.Timeout | undefined;
  private remaining: number;
  private since = 0;
  private holds = 0;
  private done = false;

  constructor(
    ms: number,
    private readonly onFire: () => void,
    private readonly now: () => number = Date.now,
  ) {
    this.remaining = ms;
    this.arm();
  }

  /** Stops the clock until the returned release is called (once; later calls do nothing). */
  hold(): () => void {
    if (this.holds++ === 0 && this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
      this.remaining -= this.now() - this.since;
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--this.holds === 0) this.arm();
    };
  }

  clear(): void {
    this.done = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private arm(): void {
    if (this.done) return;
    this.since = this.now();
    this.timer = setTimeout(
      () => {
        this.done = true;
        this.onFire();
      },
      Math.max(0, this.remaining),
    );
  }
}
