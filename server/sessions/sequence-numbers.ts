import type { Logger } from "@/lib/log";

/** Numbers reserved at once: a block lasts a long while, so a reservation is rare. */
const SEQ_BLOCK = 1_000_000;

/**
 * A chat's sequence numbers as this process hands them out. Numbers come from blocks
 * reserved in MongoDB ahead of use (`reserve`), so a restarted server, or another process
 * taking the chat over, never hands out a number a browser has already seen with other
 * content. The next block is reserved in the background once half of the current one is
 * used, so numbering an event never waits for the database.
 */
export class SequenceNumbers {
  private seq: number;
  /** Where the newest reserved block ends. */
  private limit: number;
  private reserving: Promise<void> | undefined;

  private constructor(
    private readonly reserve: (count: number) => Promise<number>,
    start: number,
    private readonly log?: Pick<Logger, "warn">,
  ) {
    this.seq = start;
    this.limit = start + SEQ_BLOCK;
  }

  /** Numbering that starts at a block reserved now. */
  static async open(reserve: (count: number) => Promise<number>, log?: Pick<Logger, "warn">): Promise<SequenceNumbers> {
    return new SequenceNumbers(reserve, await reserve(SEQ_BLOCK), log);
  }

  /** The last number handed out (or where numbering stands). */
  get current(): number {
    return this.seq;
  }

  /** The next number, reserving the next block in the background once half of this one is used. */
  next(): number {
    this.seq += 1;
    if (this.limit - this.seq < SEQ_BLOCK / 2 && !this.reserving) {
      this.reserving = this.reserve(SEQ_BLOCK)
        .then((start) => {
          // Numbers below the newest reservation were never handed out by another process.
          this.limit = start + SEQ_BLOCK;
        })
        .catch((error: unknown) => this.log?.warn("could not reserve sequence numbers", { error: String(error) }))
        .finally(() => {
          this.reserving = undefined;
        });
    }
    return this.seq;
  }

  /** Numbering stands at `seq` from now on (another process numbered the events up to it, or a jump past a gap). */
  moveTo(seq: number): void {
    this.seq = seq;
  }

  /** The start of a block reserved now: no process has handed out a number past it. */
  freshStart(): Promise<number> {
    return this.reserve(SEQ_BLOCK);
  }
}
