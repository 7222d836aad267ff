import type { SessionEvent } from "@/lib/contracts";

/**
 * The last `capacity` events relayed in a session, for a browser that rejoins having
 * missed a few. A ring: adding an event costs the same whether the window is empty or
 * full (no array is copied or shifted on the relay path), and it always holds the last
 * `capacity` events. Sequence numbers in it are consecutive, so an event is found by
 * arithmetic, not search.
 */
export class ReplayWindow {
  private readonly events: SessionEvent[] = [];
  /** Index of the oldest event once the ring is full. */
  private head = 0;

  constructor(readonly capacity: number) {}

  push(event: SessionEvent): void {
    if (this.events.length < this.capacity) {
      this.events.push(event);
      return;
    }
    this.events[this.head] = event;
    this.head = (this.head + 1) % this.capacity;
  }

  /** Sequence number of the oldest event held, if any. */
  get firstSeq(): number | undefined {
    return this.events[this.head]?.seq;
  }

  /**
   * Whether a viewer that saw the events up to `lastSeq` can be brought to `seq` (the
   * chat's last number) from this window alone: every event between is held.
   */
  canReplay(lastSeq: number, seq: number): boolean {
    if (lastSeq > seq) return false;
    if (lastSeq === seq) return true;
    const first = this.firstSeq;
    return first !== undefined && lastSeq >= first - 1;
  }

  /** The events held after `lastSeq`, oldest first (all of them when `lastSeq` is older than the window). */
  after(lastSeq: number): SessionEvent[] {
    const first = this.firstSeq;
    if (first === undefined) return [];
    const skip = Math.min(this.events.length, Math.max(0, lastSeq + 1 - first));
    const out: SessionEvent[] = new Array(this.events.length - skip);
    for (let k = skip; k < this.events.length; k++) out[k - skip] = this.events[(this.head + k) % this.events.length]!;
    return out;
  }
}
