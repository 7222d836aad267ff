import fc from "fast-check";
import type { RecordedStreamOptions } from "./recorded-stream";

/** Random recorded turns for property tests: nesting, parallelism, failures, kills, steers, hostile text. */
export const recordedStreamOptions: fc.Arbitrary<RecordedStreamOptions> = fc.record({
  seed: fc.integer({ min: 1, max: 1_000_000 }),
  subagents: fc.integer({ min: 0, max: 3 }),
  grandchildren: fc.integer({ min: 0, max: 2 }),
  tokensPerSubagent: fc.integer({ min: 1, max: 8 }),
  nestedToolCalls: fc.integer({ min: 0, max: 2 }),
  failures: fc.integer({ min: 0, max: 2 }),
  kills: fc.integer({ min: 0, max: 1 }),
  parallel: fc.boolean(),
  hostile: fc.boolean(),
  approvals: fc.integer({ min: 0, max: 3 }),
  steers: fc.integer({ min: 0, max: 2 }),
});
