import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os, { tmpdir } from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";
import { startAppProcess } from "@/e2e/app-process";
import { CHROMIUM_ARGS } from "@/playwright.config";
import { IDENTITY_COOKIE } from "@/server/accounts/identity";
import { BENCH_SECRET } from "./bench-app";
import { openBenchDatabase } from "./bench-database";
import { CHROMIUM_PATH } from "./browser-bench";
import { RELOAD_FULL, runReloadBench } from "./reload-bench";
import { median } from "./stats";
import { attributeLongTasks, type TraceEvent } from "./trace-attribution";

/**
 * `npx tsx bench/reload-probe.ts [loads] [--trace file.json]` — where the time of a
 * 500-turn reload goes, for finding causes (the figures of record are reload-run.ts's).
 * Each load records, on the page's own clock: the document's response, first contentful
 * paint, the last turn in the DOM, DOMContentLoaded, the socket's creation (after
 * hydration) and its join's answer; and the bytes of the HTML and of the scripts. With
 * --trace, one more load is traced and its long tasks attributed.
 */
async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const loads = Number(argv.find((a) => /^\d+$/.test(a)) ?? 7);
  const traceAt = argv.indexOf("--trace");
  const traceFile = traceAt >= 0 ? argv[traceAt + 1] : undefined;
  const db = await openBenchDatabase();
  const dataDir = mkdtempSync(path.join(tmpdir(), "delegate-probe-"));
  try {
    const reloaded = await runReloadBench(db, [RELOAD_FULL.at(-1)!]);
    const size = reloaded.sizes[0]!;
    const app = await startAppProcess({ mongoUri: db.uri, dataDir, env: { SESSION_SECRET: BENCH_SECRET }, quiet: true });
    const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
    try {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const eq = reloaded.cookie.indexOf("=");
      await context.addCookies([{ name: IDENTITY_COOKIE, value: reloaded.cookie.slice(eq + 1), url: app.baseUrl }]);
      await context.addInitScript(INSTRUMENT);
      const url = `${app.baseUrl}/c/${size.sessionId}`;
      const rows: Figures[] = [];
      for (let i = 0; i < loads; i++) rows.push(await probe(context, url, size.lastTurnId));
      process.stdout.write(
        `load average ${os
          .loadavg()
          .map((l) => l.toFixed(2))
          .join(" ")}\n`,
      );
      for (const [i, r] of rows.entries()) process.stdout.write(`${i === 0 ? "first" : `warm ${i}`}: ${line(r)}\n`);
      const warm = rows.slice(1);
      const keys = Object.keys(rows[0]!) as (keyof Figures)[];
      process.stdout.write(
        `median warm: ${line(Object.fromEntries(keys.map((k) => [k, Math.round(median(warm.map((r) => r[k])))])) as unknown as Figures)}\n`,
      );
      if (traceFile) {
        const page = await context.newPage();
        await browser.startTracing(page, {
          path: traceFile,
          screenshots: false,
          categories: [
            "devtools.timeline",
            "disabled-by-default-devtools.timeline",
            "v8.execute",
            "disabled-by-default-v8.cpu_profiler",
            "blink.user_timing",
            "loading",
          ],
        });
        await page.goto(url, { waitUntil: "commit" });
        await page.waitForFunction(() => (window as unknown as { __probe: { joined?: number } }).__probe.joined !== undefined, undefined, {
          timeout: 60_000,
        });
        await page.waitForTimeout(300);
        await browser.stopTracing();
        await page.close();
        const trace = JSON.parse(readFileSync(traceFile, "utf8")) as { traceEvents: TraceEvent[] };
        for (const task of attributeLongTasks(trace.traceEvents, 30)) {
          process.stdout.write(
            `long task at ${task.startMs} ms: ${task.durationMs} ms (${task.cpuMs} on the CPU)\n  events: ${task.events.map((e) => `${e.name} ${e.selfMs}`).join(", ")}\n  under: ${task.underFunctions
              .slice(0, 8)
              .map((f) => `${f.fn} ${f.ms}`)
              .join(" | ")}\n`,
          );
        }
        writeFileSync(traceFile, JSON.stringify(trace));
      }
    } finally {
      await browser.close();
      await app.stop();
    }
  } finally {
    await db.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

interface Figures {
  ttfb: number;
  response: number;
  fcp: number;
  lastTurn: number;
  dcl: number;
  socket: number;
  joined: number;
  htmlKb: number;
  scriptKb: number;
}

const line = (r: Figures) =>
  `first byte ${r.ttfb} · response ${r.response} · FCP ${r.fcp} · last turn in DOM ${r.lastTurn} · DCL ${r.dcl} · socket ${r.socket} · joined ${r.joined} ms · HTML ${r.htmlKb} KiB (transferred) · scripts ${r.scriptKb} KiB`;

/** Installed before any script of the page: when the last turn appears, when the socket is made, when its join is answered. */
const INSTRUMENT = `(() => {
  const probe = (window.__probe = {});
  const Native = window.WebSocket;
  window.WebSocket = function (...args) {
    const ws = new Native(...args);
    if (probe.socket === undefined) probe.socket = performance.now();
    ws.addEventListener("message", (e) => {
      if (probe.joined === undefined && typeof e.data === "string" && e.data.includes('"mode":')) probe.joined = performance.now();
    });
    return ws;
  };
  window.WebSocket.prototype = Native.prototype;
  Object.assign(window.WebSocket, { CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3 });
})();`;

type Context = Awaited<ReturnType<Awaited<ReturnType<typeof chromium.launch>>["newContext"]>>;

async function probe(context: Context, url: string, lastTurnId: string): Promise<Figures> {
  const page = await context.newPage();
  try {
    await page.goto(url, { waitUntil: "commit", timeout: 60_000 });
    await page.waitForFunction(
      (turnId) => {
        const probe = (window as unknown as { __probe: Record<string, number> }).__probe;
        if (probe.lastTurn === undefined && document.querySelector(`[data-turn-id="${turnId}"]`)) probe.lastTurn = performance.now();
        return probe.joined !== undefined && probe.lastTurn !== undefined;
      },
      lastTurnId,
      { polling: "raf", timeout: 60_000 },
    );
    return await page.evaluate(() => {
      const probe = (window as unknown as { __probe: Record<string, number> }).__probe;
      const nav = performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming;
      const fcp = performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? NaN;
      const scripts = (performance.getEntriesByType("resource") as PerformanceResourceTiming[]).filter((r) => r.initiatorType === "script");
      return {
        ttfb: Math.round(nav.responseStart),
        response: Math.round(nav.responseEnd),
        fcp: Math.round(fcp),
        lastTurn: Math.round(probe.lastTurn!),
        dcl: Math.round(nav.domContentLoadedEventEnd),
        socket: Math.round(probe.socket ?? NaN),
        joined: Math.round(probe.joined!),
        htmlKb: Math.round(nav.transferSize / 1024),
        scriptKb: Math.round(scripts.reduce((s, r) => s + r.decodedBodySize, 0) / 1024),
      };
    });
  } finally {
    await page.close();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`probe failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
