// Preloaded into the app by load/attack-probes.ts (`node --import`): writes a line to
// LOOP_BLOCKS_FILE for each time the event loop was held longer than 20 ms, with when it
// started and ended on the machine's monotonic clock (the probe reads the same clock), so
// a probe can tell the app's own longest block apart from what its bystander waited.
import { appendFileSync } from "node:fs";
import { isMainThread } from "node:worker_threads";

// The server's thread only: a worker (the import check) blocks its own loop by design.
const file = process.env.LOOP_BLOCKS_FILE;
if (file && isMainThread) {
  const TICK_MS = 5;
  const REPORTED_MS = 20;
  let last = process.hrtime.bigint();
  setInterval(() => {
    const now = process.hrtime.bigint();
    const heldMs = Number(now - last) / 1e6 - TICK_MS;
    if (heldMs > REPORTED_MS) appendFileSync(file, `${last} ${now} ${heldMs.toFixed(1)}\n`);
    last = now;
  }, TICK_MS).unref();
}
