import os from "node:os";
import { openBenchDatabase } from "./bench-database";
import { assertBrowserReady, runBrowserBench } from "./browser-bench";
import { RELOAD_FULL, runReloadBench } from "./reload-bench";

/**
 * The 500-turn reload alone (`npx tsx bench/reload-run.ts [loads]`): seeds the largest
 * reload session, then loads it in Chromium from the production build `loads` times
 * (default 9) and prints every load. The full `npm run bench` runs the same two parts
 * with 4 loads; this is for measuring one change to the page's load quickly.
 */
async function main(): Promise<void> {
  const loads = Number(process.argv[2] ?? 9);
  assertBrowserReady();
  const load = os.loadavg()[0]!.toFixed(2);
  const db = await openBenchDatabase();
  try {
    const reloaded = await runReloadBench(db, [RELOAD_FULL.at(-1)!]);
    const size = reloaded.sizes[0]!;
    const browser = await runBrowserBench({
      mongoUri: db.uri,
      cookie: reloaded.cookie,
      sessionId: size.sessionId,
      lastTurnId: size.lastTurnId,
      turns: size.turns,
      loads,
      buildIfMissing: false,
    });
    process.stdout.write(`${JSON.stringify({ loadAverageAtStart: load, loadAverageAtEnd: os.loadavg()[0]!.toFixed(2), joinBytes: size.bytes, warmJoinMs: size.warmJoinMs, ...browser })}\n`);
  } finally {
    await db.close();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`reload benchmark failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
