import os from "node:os";
import path from "node:path";
import { openBenchDatabase } from "./bench-database";
import { assertBrowserReady, runBrowserBench, type BrowserResult } from "./browser-bench";
import { RELOAD_FULL, runReloadBench } from "./reload-bench";
import { median } from "./stats";

/**
 * The 500-turn reload alone: `npx tsx bench/reload-run.ts [loads] [--against DIR] [--rounds N]`.
 * Seeds the largest reload session, then loads it in Chromium from the production build
 * `loads` times (default 9) and prints every load. The full `npm run bench` runs the same
 * two parts with 4 loads; this is for measuring one change to the page's load quickly.
 *
 * `--against DIR`: another checkout with its own production build (say, main's), run in
 * alternating rounds with this one on the same database, so the machine's load (shared
 * cores) falls on both alike; prints both medians of warm loads per round and overall.
 */
async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const loads = Number(argv.find((a) => /^\d+$/.test(a)) ?? 9);
  const against = valueOf(argv, "--against");
  const rounds = Number(valueOf(argv, "--rounds") ?? (against ? 3 : 1));
  assertBrowserReady();
  const here = process.cwd();
  const dirs = against ? [here, path.resolve(against)] : [here];
  const db = await openBenchDatabase();
  try {
    const reloaded = await runReloadBench(db, [RELOAD_FULL.at(-1)!]);
    const size = reloaded.sizes[0]!;
    const warm = new Map<string, number[]>(dirs.map((d) => [d, []]));
    for (let round = 1; round <= rounds; round++) {
      for (const dir of round % 2 === 1 ? dirs : [...dirs].reverse()) {
        // The app process and the build check use the working directory.
        process.chdir(dir);
        const load = os.loadavg()[0]!.toFixed(2);
        let browser: BrowserResult;
        try {
          browser = await runBrowserBench({
            mongoUri: db.uri,
            cookie: reloaded.cookie,
            sessionId: size.sessionId,
            lastTurnId: size.lastTurnId,
            turns: size.turns,
            loads,
            buildIfMissing: false,
          });
        } finally {
          process.chdir(here);
        }
        warm.get(dir)!.push(...browser.allRenderedMs!.slice(1));
        process.stdout.write(
          `${JSON.stringify({ round, dir, loadAverageAtStart: load, loadAverageAtEnd: os.loadavg()[0]!.toFixed(2), ...browser })}\n`,
        );
      }
    }
    for (const [dir, values] of warm) process.stdout.write(`${dir}: median of ${values.length} warm loads ${median(values)} ms\n`);
  } finally {
    await db.close();
  }
}

function valueOf(argv: string[], flag: string): string | undefined {
  const i = argv.indexOf(flag);
  return i >= 0 ? argv[i + 1] : undefined;
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`reload benchmark failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
