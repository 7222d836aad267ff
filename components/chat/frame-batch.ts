/**
 * Collects items and hands them over once per animation frame. A streaming turn sends
 * hundreds of events a second, each in its own WebSocket message task: dispatched one by
 * one, each is a React render of the chat, and together they starve the frames and the
 * keyboard. Handed over per frame, the events of one frame are one render (React batches
 * the dispatches of one task). A timer backs up the frame: hidden tabs get no frames.
 * `flush()` hands over at once, for whatever must come after the queued items.
 */
export interface FrameBatch<T> {
  push(item: T): void;
  flush(): void;
  dispose(): void;
}

/** Longest an item waits when no frame comes (a background tab). */
const FALLBACK_MS = 100;

export function frameBatch<T>(deliver: (items: T[]) => void, schedule: FrameScheduler = browserScheduler): FrameBatch<T> {
  let queue: T[] = [];
  let cancel: (() => void) | null = null;
  const flush = () => {
    cancel?.();
    cancel = null;
    if (queue.length === 0) return;
    const items = queue;
    queue = [];
    deliver(items);
  };
  return {
    push(item) {
      queue.push(item);
      if (!cancel) cancel = schedule(flush, FALLBACK_MS);
    },
    flush,
    dispose() {
      cancel?.();
      cancel = null;
      queue = [];
    },
  };
}

/** Runs `fn` once, at the next frame or after `fallbackMs`; returns a canceller. */
export type FrameScheduler = (fn: () => void, fallbackMs: number) => () => void;

const browserScheduler: FrameScheduler = (fn, fallbackMs) => {
  const frame = requestAnimationFrame(fn);
  const timer = setTimeout(fn, fallbackMs);
  return () => {
    cancelAnimationFrame(frame);
    clearTimeout(timer);
  };
};
