import { describe, expect, it } from "vitest";
import { retainedBytes } from "@/test/support/heap";
import { createKeyedQueue } from "./keyed-queue";

describe("a queue per key", () => {
  it("runs one key's tasks one at a time in order and lets other keys through", async () => {
    const queue = createKeyedQueue();
    const log: string[] = [];
    const task = (name: string, ms: number) => () =>
      new Promise<string>((resolve) => {
        log.push(`start ${name}`);
        setTimeout(() => {
          log.push(`end ${name}`);
          resolve(name);
        }, ms);
      });
    const results = await Promise.all([queue.run("ann", task("a1", 30)), queue.run("ann", task("a2", 1)), queue.run("bob", task("b1", 1))]);
    expect(results).toEqual(["a1", "a2", "b1"]);
    expect(log.indexOf("start a2")).toBeGreaterThan(log.indexOf("end a1"));
    expect(log.indexOf("end b1")).toBeLessThan(log.indexOf("end a1"));
  });

  it("forgets a key once its work is done, so a long-lived queue does not grow with every key it has seen", async () => {
    const queue = createKeyedQueue();
    // Kept, every key costs about 120 bytes: 12 MB for these.
    const retained = await retainedBytes(async () => {
      const runs: Promise<unknown>[] = [];
      for (let i = 0; i < 100_000; i++) runs.push(queue.run(`person-${i}`, async () => undefined));
      await Promise.all(runs);
    });
    expect(retained).toBeLessThan(2_000_000);
  });

  it("goes on after a task fails, and the caller still gets the failure", async () => {
    const queue = createKeyedQueue();
    const failed = queue.run("ann", () => Promise.reject(new Error("full")));
    const next = queue.run("ann", async () => "created");
    await expect(failed).rejects.toThrow("full");
    await expect(next).resolves.toBe("created");
  });
});
