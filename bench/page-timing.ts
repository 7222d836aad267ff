import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os, { tmpdir } from "node:os";
import path from "node:path";
import { startAppProcess } from "@/e2e/app-process";
import { BENCH_SECRET } from "./bench-app";
import { openBenchDatabase } from "./bench-database";
import { RELOAD_FULL, runReloadBench } from "./reload-bench";
import { median } from "./stats";

/**
 * `npx tsx bench/page-timing.ts [requests] [--against DIR]` — the server's side of a
 * 500-turn reload: the chat page's HTML fetched over HTTP with the owner's cookie, time to
 * first byte and to the last, and its size (for finding where the page's render goes;
 * APP_NODE_OPTIONS reaches the app process, e.g. --cpu-prof).
 */
async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const requests = Number(argv.find((a) => /^\d+$/.test(a)) ?? 15);
  const db = await openBenchDatabase();
  const dataDir = mkdtempSync(path.join(tmpdir(), "delegate-timing-"));
  try {
    const reloaded = await runReloadBench(db, [RELOAD_FULL.at(-1)!]);
    const size = reloaded.sizes[0]!;
    const app = await startAppProcess({
      mongoUri: db.uri,
      dataDir,
      env: { SESSION_SECRET: BENCH_SECRET, NODE_OPTIONS: process.env.APP_NODE_OPTIONS ?? "" },
      quiet: true,
    });
    try {
      const first: number[] = [];
      const total: number[] = [];
      let bytes = 0;
      for (let i = 0; i < requests; i++) {
        const start = performance.now();
        const res = await fetch(`${app.baseUrl}/c/${size.sessionId}`, {
          headers: { cookie: reloaded.cookie, "accept-encoding": process.env.ENCODING ?? "identity" },
        });
        const reader = res.body!.getReader();
        let got = 0;
        let firstAt = 0;
        const parts: Uint8Array[] = [];
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          if (!firstAt) firstAt = performance.now() - start;
          got += value.length;
          parts.push(value);
        }
        if (process.env.DUMP_HTML && i === requests - 1) writeFileSync(process.env.DUMP_HTML, Buffer.concat(parts));
        first.push(firstAt);
        total.push(performance.now() - start);
        bytes = got;
      }
      const asset = await fetch(`${app.baseUrl}/theme-init.js`);
      process.stdout.write(
        `theme-init.js: ${asset.status} cache-control ${asset.headers.get("cache-control")} etag ${asset.headers.get("etag")}\n`,
      );
      process.stdout.write(
        `load ${os.loadavg()[0]!.toFixed(2)}; first ${Math.round(total[0]!)} ms; warm median: first byte ${Math.round(median(first.slice(1)))} ms, whole ${Math.round(median(total.slice(1)))} ms; ${Math.round(bytes / 1024)} KiB\n`,
      );
    } finally {
      await app.stop();
    }
  } finally {
    await db.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
