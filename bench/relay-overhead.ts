import { PerformanceObserver } from "node:perf_hooks";
import { openBenchDatabase } from "./bench-database";
import { createScriptedRunner, type TurnPlan } from "./scripted-runner";
import { median, round } from "./stats";
import { DroneSession } from "@/server/sessions/drone-session";

/**
 * `npx tsx bench/relay-overhead.ts [events] [turns] [rate]` — the relay's own cost per
 * event, without Socket.IO: the scripted runner publishes `events` tokens into a real
 * DroneSession (sequence, fold, replay window, the event store writing to the database)
 * whose relay does nothing. Prints the median over `turns` turns of this process's CPU
 * per 1,000 events and of the time spent in garbage collection. Paced at `rate` events/s
 * when given (the timer loop then costs as much as the relay), else a burst.
 */
async function main(): Promise<void> {
  const [events = 15_000, turns = 9, rate] = process.argv.slice(2).map(Number);
  const gc: number[] = [];
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) gc.push(entry.duration);
  }).observe({ entryTypes: ["gc"] });
  const db = await openBenchDatabase();
  const cpu: number[] = [];
  const gcMs: number[] = [];
  try {
    for (let t = 0; t < turns; t++) {
      const { sessionId } = await db.store.createSession("bench-owner");
      const plan: TurnPlan = { events, ...(rate ? { ratePerSecond: rate } : {}), sentAt: new Float64Array(events) };
      const session = await DroneSession.open({
        store: db.store,
        sessionId,
        title: "Bench",
        runner: createScriptedRunner(() => plan),
        relay: () => undefined,
      });
      gc.length = 0;
      const before = process.cpuUsage();
      await session.startTurn("Stream the benchmark turn.");
      await session.settled();
      const used = process.cpuUsage(before);
      cpu.push(((used.user + used.system) / 1000 / events) * 1000);
      gcMs.push(gc.reduce((a, b) => a + b, 0));
    }
  } finally {
    await db.close();
  }
  process.stdout.write(
    `${JSON.stringify({ events, turns, rate: rate ?? "burst", cpuMsPer1000: round(median(cpu), 2), gcMsPerTurn: round(median(gcMs), 1), allCpu: cpu.map((c) => round(c, 1)) })}\n`,
  );
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`relay overhead failed: ${String(error)}\n`);
    process.exit(1);
  },
);
