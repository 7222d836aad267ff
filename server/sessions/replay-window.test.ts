import { describe, expect, it } from "vitest";
import type { SessionEvent } from "@/lib/contracts";
import { ReplayWindow } from "./replay-window";

const event = (seq: number): SessionEvent => ({
  type: "turn:data",
  turnId: "t1",
  runId: null,
  data: { kind: "token", step: 0, offset: seq, text: "x" },
  sessionId: "s1",
  seq,
});
const seqs = (events: SessionEvent[]) => events.map((e) => e.seq);

describe("the replay window", () => {
  it("is empty before anything is relayed", () => {
    const window = new ReplayWindow(3);
    expect(window.firstSeq).toBeUndefined();
    expect(window.after(0)).toStrictEqual([]);
  });

  it("hands back exactly the events after a sequence number, oldest first", () => {
    const window = new ReplayWindow(5);
    for (let seq = 1; seq <= 4; seq++) window.push(event(seq));
    expect(seqs(window.after(2))).toStrictEqual([3, 4]);
    expect(seqs(window.after(0))).toStrictEqual([1, 2, 3, 4]);
    expect(window.after(4)).toStrictEqual([]);
  });

  it("once full, always holds the last `capacity` events, in order, however many went by", () => {
    const window = new ReplayWindow(4);
    for (let seq = 1; seq <= 11; seq++) {
      window.push(event(seq));
      const first = Math.max(1, seq - 3);
      expect(window.firstSeq).toBe(first);
      expect(seqs(window.after(first - 1))).toStrictEqual(Array.from({ length: seq - first + 1 }, (_, k) => first + k));
    }
    expect(seqs(window.after(9))).toStrictEqual([10, 11]);
  });
});

describe("whether a rejoin can be replayed", () => {
  it("can when every event after the viewer's last one is held, and not when it is ahead or too far behind", () => {
    const window = new ReplayWindow(3);
    expect(window.canReplay(0, 0)).toBe(true);
    expect(window.canReplay(0, 1)).toBe(false);
    for (let seq = 1; seq <= 5; seq++) window.push(event(seq));
    // Holds 3, 4, 5: a viewer at 2 misses exactly those.
    expect(window.canReplay(2, 5)).toBe(true);
    expect(window.canReplay(5, 5)).toBe(true);
    expect(window.canReplay(1, 5)).toBe(false);
    expect(window.canReplay(6, 5)).toBe(false);
  });
});
