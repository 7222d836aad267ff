import os from "node:os";
import { startMongoJavaServer } from "@/server/db/mongo-java-server";
import { renderText } from "./table";
import { runTracingBench, tracingTables } from "./tracing-bench";

/**
 * `npm run bench:tracing` — tracing off vs on, side by side (bench/tracing-bench.ts).
 *
 *   --rounds N   pairs of runs, alternating which side goes first (default 3)
 *   --smoke      tiny sizes (what bench/bench.test.ts runs)
 */
async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const roundsAt = argv.indexOf("--rounds");
  const rounds = roundsAt >= 0 ? Number(argv[roundsAt + 1]) : 3;
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error("--rounds takes a whole number ≥ 1");
  const size = argv.includes("--smoke") ? "smoke" : "full";
  const loadAtStart = os.loadavg()[0]!.toFixed(1);
  const mongo = process.env.MONGODB_URI ? undefined : await startMongoJavaServer();
  try {
    const result = await runTracingBench({
      mongoUri: process.env.MONGODB_URI ?? mongo!.uri,
      rounds,
      size,
      progress: (line) => process.stderr.write(`… ${line}\n`),
    });
    const cpu = os.cpus();
    process.stdout.write(
      `\nTracing overhead (${size}) — ${cpu.length} × ${cpu[0]?.model ?? "cpu"}, Node ${process.version}, ${rounds} alternating pairs, ` +
        `load ${loadAtStart} at start and ${os.loadavg()[0]!.toFixed(1)} at the end\n\n`,
    );
    process.stdout.write(`${tracingTables(result).map(renderText).join("\n\n")}\n`);
  } finally {
    await mongo?.stop();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`tracing benchmark failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
