import { mkdirSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { openBenchDatabase } from "./bench-database";
import { STREAM_FULL, runStreamBench, type StreamFigures } from "./stream-bench";
import { attributeLongTasks, cpuLongTasks, type TraceEvent } from "./trace-attribution";

/**
 * `npx tsx bench/stream-profile.ts [--runs N] [--collapsed] [--trace DIR]` — the streaming
 * benchmark alone (its full size), N times on one database, one line of figures per run
 * with the machine's load average. With --trace, each run also records a Chromium
 * performance trace and prints what every long task spent its time on; traced runs are
 * slower, so their figures are for finding causes, not for the record.
 */
async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const runs = Number(valueOf(argv, "--runs") ?? 1);
  const traceRoot = valueOf(argv, "--trace");
  const variants: Array<"expanded" | "collapsed"> = argv.includes("--collapsed") ? ["expanded", "collapsed"] : ["expanded"];
  const db = await openBenchDatabase();
  try {
    for (let run = 1; run <= runs; run++) {
      const load = os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(" ");
      const traceDir = traceRoot ? path.resolve(traceRoot, `run-${run}`) : undefined;
      if (traceDir) mkdirSync(traceDir, { recursive: true });
      const figures = await runStreamBench({ mongoUri: db.uri, ...STREAM_FULL, variants, traceDir });
      for (const f of figures) {
        process.stdout.write(`run ${run} (load ${load}) ${line(f)}\n`);
        if (traceDir) explain(path.join(traceDir, `${f.panels}.json`));
      }
    }
  } finally {
    await db.close();
  }
}

function line(f: StreamFigures): string {
  return (
    `${f.panels}: long tasks ${f.longTasks} (longest ${f.longestTaskMs} ms, ${f.longTaskTotalMs} ms in all), ` +
    `fps ${f.fpsMean} avg / ${f.fpsWorstSecond} worst second [${f.fpsPerSecond.join(" ")}], keystroke p50 ${f.keyPaintP50Ms} / p95 ${f.keyPaintP95Ms} ms, main thread ${f.taskMsPerFrame} ms per frame (script ${f.scriptMsPerFrame}), ` +
    `heap ${f.heapStartMb}→${f.heapEndMb} MB, ${f.domNodes} DOM nodes (panels ${f.panelNodesMax} at most, ${f.panelNodesEnd} at the end), ${f.seconds} s`
  );
}

function explain(file: string): void {
  const trace = JSON.parse(readFileSync(file, "utf8")) as { traceEvents: TraceEvent[] } | TraceEvent[];
  const events = Array.isArray(trace) ? trace : trace.traceEvents;
  process.stdout.write(
    `  tasks over 50 ms on the CPU: ${cpuLongTasks(events)} (over 25 ms: ${cpuLongTasks(events, 25)}, over 16 ms: ${cpuLongTasks(events, 16)})\n`,
  );
  for (const task of attributeLongTasks(events)) {
    process.stdout.write(`  long task at ${task.startMs} ms: ${task.durationMs} ms (${task.cpuMs} ms on the CPU)\n`);
    process.stdout.write(`    events: ${task.events.map((e) => `${e.name} ${e.selfMs}`).join(", ")}\n`);
    process.stdout.write(`    self:   ${task.selfFunctions.map((f) => `${f.fn} ${f.ms}`).join(" | ")}\n`);
    process.stdout.write(`    under:  ${task.underFunctions.map((f) => `${f.fn} ${f.ms}`).join(" | ")}\n`);
  }
}

function valueOf(argv: string[], flag: string): string | undefined {
  const i = argv.indexOf(flag);
  return i >= 0 ? argv[i + 1] : undefined;
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`stream profile failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
