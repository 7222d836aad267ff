/**
 * The one rule for a chat's numbered events, wherever they are read (a browser, another
 * process following the chat's stream, a rebuild from that stream): an event at or below
 * the last number applied is a duplicate (a replay overlap, a stream read from an offset),
 * the next number applies, anything further on means events were lost in between.
 */
export type SequenceStep = "duplicate" | "next" | "gap";

export function sequenceStep(lastSeq: number, seq: number): SequenceStep {
  if (seq <= lastSeq) return "duplicate";
  return seq === lastSeq + 1 ? "next" : "gap";
}
