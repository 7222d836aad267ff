import { describe, expect, it } from "vitest";
import { frameBatch, type FrameScheduler } from "./frame-batch";

/** A scheduler the test fires by hand, standing in for requestAnimationFrame. */
function manualFrames() {
  const pending: Array<() => void> = [];
  const schedule: FrameScheduler = (fn) => {
    pending.push(fn);
    return () => pending.splice(pending.indexOf(fn), 1);
  };
  return { schedule, frame: () => pending.splice(0).forEach((fn) => fn()), pending };
}

describe("frameBatch", () => {
  it("hands over everything pushed before a frame in one call, in order", () => {
    const frames = manualFrames();
    const delivered: number[][] = [];
    const batch = frameBatch<number>((items) => delivered.push(items), frames.schedule);
    for (let i = 0; i < 5; i++) batch.push(i);
    expect(delivered).toEqual([]);
    expect(frames.pending).toHaveLength(1);
    frames.frame();
    batch.push(5);
    frames.frame();
    expect(delivered).toEqual([[0, 1, 2, 3, 4], [5]]);
  });

  it("flush hands over at once and cancels the scheduled frame", () => {
    const frames = manualFrames();
    const delivered: number[][] = [];
    const batch = frameBatch<number>((items) => delivered.push(items), frames.schedule);
    batch.push(1);
    batch.flush();
    expect(delivered).toEqual([[1]]);
    expect(frames.pending).toHaveLength(0);
    batch.flush();
    expect(delivered).toEqual([[1]]);
  });

  it("drops what is queued when disposed", () => {
    const frames = manualFrames();
    const delivered: number[][] = [];
    const batch = frameBatch<number>((items) => delivered.push(items), frames.schedule);
    batch.push(1);
    batch.dispose();
    frames.frame();
    expect(delivered).toEqual([]);
  });
});
