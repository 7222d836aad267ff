import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";
import { startAppProcess } from "@/e2e/app-process";
import { CHROMIUM_ARGS } from "@/playwright.config";
import { IDENTITY_COOKIE } from "@/server/accounts/identity";
import { BENCH_SECRET } from "./bench-app";
import { median, round } from "./stats";

/**
 * Benchmark 3 (browser side): how long Chromium takes to show a stored session — from
 * navigation start until the last turn is in the DOM and the message list can be
 * scrolled to the bottom. The real app runs as its own process with a production build,
 * started by e2e/app-process.ts as the browser tests start it, against the benchmark's database and with the
 * benchmark's cookie secret, so the owner's cookie obtained earlier over HTTP is valid
 * there too.
 */

export interface BrowserBenchOptions {
  /** Database URI including the name the sessions were written to. */
  mongoUri: string;
  /** `name=value` identity cookie of the session's owner. */
  cookie: string;
  sessionId: string;
  lastTurnId: string;
  turns: number;
  loads: number;
  /** Build the app when no production build exists (slow; the full run only). */
  buildIfMissing: boolean;
}

export interface BrowserResult {
  turns: number;
  loads: number;
  /** First load (cold caches in the browser and the app), then the median of the rest. */
  firstRenderedMs: number;
  renderedMs: number;
  /** Navigation timing of the HTML document (median). */
  htmlTtfbMs: number;
  domContentLoadedMs: number;
  renderedTurns: number;
  scrollable: boolean;
  /** Every load's time, in order (the first is the cold one). */
  allRenderedMs?: number[];
}

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** Chromium must be there: the browser part fails with this reason rather than skip. */
export function assertBrowserReady(): void {
  if (!existsSync(CHROMIUM_PATH)) throw new Error(`no Chromium at ${CHROMIUM_PATH}: install Debian's chromium or set CHROMIUM_PATH`);
}

export async function runBrowserBench(options: BrowserBenchOptions): Promise<BrowserResult> {
  if (!existsSync(path.resolve(".next/BUILD_ID"))) {
    if (!options.buildIfMissing) throw new Error("no production build (.next/BUILD_ID); run `npx next build`");
    // --webpack: Turbopack's build fails in a git worktree (node_modules linked from elsewhere).
    const build = spawnSync("npx", ["next", "build", "--webpack"], { stdio: "inherit" });
    if (build.status !== 0) throw new Error("`next build` failed");
  }
  const dataDir = mkdtempSync(path.join(tmpdir(), "delegate-bench-"));
  const app = await startAppProcess({ mongoUri: options.mongoUri, dataDir, env: { SESSION_SECRET: BENCH_SECRET } });
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const eq = options.cookie.indexOf("=");
    await context.addCookies([{ name: IDENTITY_COOKIE, value: options.cookie.slice(eq + 1), url: app.baseUrl }]);
    const loads: LoadFigures[] = [];
    for (let i = 0; i < options.loads; i++)
      loads.push(await loadOnce(context, `${app.baseUrl}/c/${options.sessionId}`, options.lastTurnId));
    const rest = loads.length > 1 ? loads.slice(1) : loads;
    return {
      turns: options.turns,
      loads: loads.length,
      firstRenderedMs: round(loads[0]!.renderedMs, 0),
      renderedMs: round(median(rest.map((l) => l.renderedMs)), 0),
      htmlTtfbMs: round(median(rest.map((l) => l.ttfbMs)), 1),
      domContentLoadedMs: round(median(rest.map((l) => l.domContentLoadedMs)), 0),
      renderedTurns: loads.at(-1)!.renderedTurns,
      scrollable: loads.every((l) => l.scrollable),
      allRenderedMs: loads.map((l) => round(l.renderedMs, 0)),
    };
  } finally {
    await browser.close();
    await app.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

interface LoadFigures {
  renderedMs: number;
  ttfbMs: number;
  domContentLoadedMs: number;
  renderedTurns: number;
  scrollable: boolean;
}

type Context = Awaited<ReturnType<Awaited<ReturnType<typeof chromium.launch>>["newContext"]>>;

async function loadOnce(context: Context, url: string, lastTurnId: string): Promise<LoadFigures> {
  const page = await context.newPage();
  try {
    await page.goto(url, { waitUntil: "commit", timeout: 60_000 });
    // Polled every frame in the page: the time is the page's own clock since navigation start.
    const done = await page.waitForFunction(
      (turnId) => {
        const last = document.querySelector(`[data-testid="message-assistant"][data-turn-id="${turnId}"]`);
        const list = document.querySelector<HTMLElement>('[data-testid="message-list"]');
        if (!last || !list) return false;
        const scrollable = list.scrollHeight > list.clientHeight;
        list.scrollTop = list.scrollHeight;
        const atBottom = list.scrollTop + list.clientHeight >= list.scrollHeight - 2;
        if (!atBottom) return false;
        return { at: performance.now(), scrollable, turns: document.querySelectorAll('[data-testid="message-assistant"]').length };
      },
      lastTurnId,
      { polling: "raf", timeout: 120_000 },
    );
    const figures = (await done.jsonValue()) as { at: number; scrollable: boolean; turns: number };
    const nav = await page.evaluate(() => {
      const entry = performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming | undefined;
      return { ttfb: entry?.responseStart ?? Number.NaN, dcl: entry?.domContentLoadedEventEnd ?? Number.NaN };
    });
    return {
      renderedMs: figures.at,
      ttfbMs: nav.ttfb,
      domContentLoadedMs: nav.dcl,
      renderedTurns: figures.turns,
      scrollable: figures.scrollable,
    };
  } finally {
    await page.close();
  }
}
