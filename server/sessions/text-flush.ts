import type { Logger } from "@/lib/log";
import type { EventStore } from "@/server/data/event-store";
import type { LiveTurns } from "./live-turns";

/**
 * A few times a second, hands the store the fold of the streamed text waiting to be
 * written (the store writes at most one append per document each time): text is not
 * written per token, and what is written is what viewers were shown.
 */
export class TextFlush {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: EventStore,
    private readonly live: LiveTurns,
    private readonly everyMs: number,
    private readonly log?: Pick<Logger, "warn">,
  ) {}

  /** After an event: once the store has text waiting, a flush comes within `everyMs`. */
  wake(): void {
    if (!this.timer && this.store.hasWaiting) this.schedule();
  }

  /** No flush comes (a drain hands the store everything itself). */
  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(): void {
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.live.foldWaiting();
      for (const turnId of this.store.waiting()) {
        const turn = this.live.get(turnId);
        if (turn) this.store.flush(turn);
        else this.log?.warn("streamed text of a turn no longer held was not written", { turnId });
      }
      if (this.store.hasWaiting) this.schedule();
    }, this.everyMs);
  }
}
