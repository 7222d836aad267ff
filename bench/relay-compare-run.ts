import { openBenchDatabase } from "./bench-database";
import { RELAY_COMPARE_FULL, RELAY_COMPARE_SMOKE, runRelayCompare, type RelayCompareCase } from "./relay-compare";
import { RELAY_FULL, runRelayBench } from "./relay-bench";

/**
 * `npx tsx bench/relay-compare-run.ts [--case N] [--rounds N] [--smoke] [--relay-bench]` — the relay
 * against raw Socket.IO alone (bench/relay-compare.ts), without the rest of `npm run bench`: for
 * profiling the per-event path (`node --cpu-prof --import tsx bench/relay-compare-run.ts --case 0`)
 * and for before/after figures. Prints one JSON line per case.
 */
async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const value = (flag: string) => {
    const i = argv.indexOf(flag);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  let cases: RelayCompareCase[] = argv.includes("--smoke") ? RELAY_COMPARE_SMOKE : RELAY_COMPARE_FULL;
  const only = value("--case");
  if (only !== undefined) cases = [cases[Number(only)]!];
  const rounds = value("--rounds");
  if (rounds !== undefined) cases = cases.map((c) => ({ ...c, rounds: Number(rounds) }));
  const db = await openBenchDatabase();
  try {
    if (argv.includes("--relay-bench")) {
      for (const result of await runRelayBench(db.store, RELAY_FULL)) process.stdout.write(`${JSON.stringify(result)}\n`);
      return;
    }
    // One case at a time, each printed as soon as it ends (the burst case can take minutes).
    for (const c of cases) {
      const [result] = await runRelayCompare(db.store, [c], (line) => process.stderr.write(`… ${line}\n`));
      process.stdout.write(`${JSON.stringify(result)}\n`);
    }
  } finally {
    await db.close();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`relay compare failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
