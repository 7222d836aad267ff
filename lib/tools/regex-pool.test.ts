import { describe, expect, it } from "vitest";
import { RegexTimeoutError, runRegexJob, type RegexJob } from "./regex-pool";

/**
 * Security review finding: 20 catastrophic patterns from one caller made another caller's
 * trivial grep wait 27 s in the shared pool of two workers. Owners now take turns.
 */
const SLOW_MS = 400;
const signal = new AbortController().signal;

function job(pattern: string, text: string): () => Promise<RegexJob> {
  return async () => ({ pattern, flags: "", files: [{ name: "f.txt", text }], maxMatches: 10, maxLineChars: 2_000 });
}

describe("regex pool", () => {
  it("serves another owner's job next, not after one owner's whole queue", async () => {
    // Order, not wall time, so a busy machine cannot fail it: the quick job finishes
    // behind at most the two slow jobs already running, not behind the greedy queue.
    const finished: string[] = [];
    const greedy = {};
    const slow = Array.from({ length: 8 }, (_, i) =>
      runRegexJob(greedy, job("^(a|a)*$", `${"a".repeat(40)}!`), SLOW_MS, signal)
        .catch((e: unknown) => e)
        .finally(() => finished.push(`slow${i}`)),
    );
    const quick = await runRegexJob({}, job("needle", "hay\nneedle\n"), 30_000, signal);
    finished.push("quick");
    expect(quick?.matches).toEqual([{ name: "f.txt", number: 2, text: "needle" }]);
    expect(finished.indexOf("quick")).toBeLessThanOrEqual(2);
    for (const outcome of await Promise.all(slow)) expect(outcome).toBeInstanceOf(RegexTimeoutError);
  });

  it("loads a job's input only once a worker is free for it", async () => {
    const loaded: number[] = [];
    // Long enough that the two running jobs are surely still running while we look.
    const slowMs = 3_000;
    const jobs = Array.from({ length: 6 }, (_, i) =>
      runRegexJob(
        {},
        async () => {
          loaded.push(i);
          return job("^(a|a)*$", `${"a".repeat(40)}!`)();
        },
        slowMs,
        signal,
      ).catch(() => undefined),
    );
    const deadline = Date.now() + slowMs / 2;
    while (loaded.length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    await new Promise((resolve) => setTimeout(resolve, 100));
    // Two workers busy with slow jobs: the four waiting jobs have read nothing yet.
    expect(loaded).toEqual([0, 1]);
    await Promise.all(jobs);
    expect(loaded).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it("returns nothing and frees the worker when there is nothing to load", async () => {
    // A generous limit: the worker may be a fresh one (the tests above killed theirs), and a
    // busy machine starts it slowly; the point is that the slot is free again.
    await expect(runRegexJob({}, async () => undefined, 30_000, signal)).resolves.toBeUndefined();
    await expect(runRegexJob({}, job("x", "x"), 30_000, signal)).resolves.toMatchObject({ capped: false });
  });
});
