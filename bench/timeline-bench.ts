import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { chromium, type Page } from "playwright-core";
import { startAppProcess } from "@/e2e/app-process";
import { MASTER_PROMPT_MARKER } from "@/lib/agent/prompts";
import { CHROMIUM_ARGS } from "@/playwright.config";
import { IDENTITY_COOKIE } from "@/server/accounts/identity";
import {
  scriptedReply,
  startScriptedOpenAIServer,
  type ScriptedRequest,
  type ScriptedResponse,
} from "@/test/support/model/scripted-openai-server";
import { BENCH_SECRET } from "./bench-app";
import { CHROMIUM_PATH } from "./browser-bench";
import { TRACE_CATEGORIES } from "./stream-bench";
import { cpuLongTasks, type TraceEvent } from "./trace-attribution";
import { median, round } from "./stats";

/**
 * The audit views in Chromium (trace timeline, context inspector), on the production build:
 *
 * 1. Stored: the 500-turn / 5,000-call session the reload benchmark seeded. Open the
 *    trace timeline of several turns, and the context inspector of the newest turn's
 *    master: click → the view drawn (the frame after it is painted), and the long tasks
 *    (over 50 ms) in between.
 * 2. Live: one turn of `subagents` explore subagents (two waves, at most 50 children at a
 *    time) making `callsPerSubagent` real tool calls each, on the real OpenAI HTTP adapter
 *    and a scripted OpenAI-compatible server, with the timeline open from the turn's first
 *    event to its end: the long tasks while it updates. Then the timeline and the
 *    inspector opened again on that finished turn.
 */

export interface TimelineBenchOptions {
  mongoUri: string;
  cookie: string;
  sessionId: string;
  /** Timelines opened on the stored session (newest turns first). */
  opens: number;
  live: { subagents: number; callsPerSubagent: number; replyDelayMs: number };
  /** A folder for a Chromium trace of each live variant (`timeline-open.json`, `timeline-closed.json`); tracing slows the page. */
  traceDir?: string;
  /** Trace the live variants (into a temporary folder unless `traceDir`) to count long tasks by CPU time too. */
  trace?: boolean;
}

export interface OpenFigures {
  opens: number;
  openMsMedian: number;
  openMsMax: number;
  longTasks: number;
  longestTaskMs: number;
}

export interface TimelineBenchResult {
  stored: { timeline: OpenFigures; inspector: OpenFigures; inspectorRecords: string };
  live: {
    subagents: number;
    toolCalls: number;
    /** The same turn with its timeline open from its start, then (a fresh chat) with it closed: what the timeline adds. */
    open: LiveFigures;
    closed: LiveFigures;
    timelineRows: number;
    reopen: OpenFigures;
    inspector: OpenFigures;
  };
}

export interface LiveFigures {
  seconds: number;
  /** Long tasks (each over 50 ms by definition) while the turn ran, the whole page. */
  longTasks: number;
  longTaskTotalMs: number;
  longestTaskMs: number;
  /** With a trace only: tasks whose main-thread CPU time reached 50 ms (the rest waited for a core on a busy machine). */
  cpuLongTasks?: number;
}

export const TIMELINE_FULL = { opens: 5, live: { subagents: 100, callsPerSubagent: 50, replyDelayMs: 400 }, trace: true } satisfies Omit<
  TimelineBenchOptions,
  "mongoUri" | "cookie" | "sessionId"
>;
export const TIMELINE_SMOKE = { opens: 1, live: { subagents: 4, callsPerSubagent: 5, replyDelayMs: 100 } } satisfies Omit<
  TimelineBenchOptions,
  "mongoUri" | "cookie" | "sessionId"
>;

/** Installed before the app's scripts (a string: tsx's helpers are not in the page). */
const INSTRUMENT = `(() => {
  const state = { longTasks: [] };
  window.__timelineBench = state;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) state.longTasks.push({ start: entry.startTime, duration: entry.duration });
  }).observe({ type: "longtask", buffered: true });
})();`;

/**
 * In the page: clicks `button`, waits (frame by frame) until `ready` holds, then for the
 * frame after it to be painted; returns the page-clock times of the click and of that paint.
 */
function openInPage(button: string, ready: string): string {
  return `(async () => {
    const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
    const painted = () => new Promise((r) => requestAnimationFrame(() => { const c = new MessageChannel(); c.port1.onmessage = () => r(); c.port2.postMessage(null); }));
    const button = document.querySelector(${JSON.stringify(button)});
    if (!button) throw new Error("no " + ${JSON.stringify(button)});
    button.scrollIntoView({ block: "center" });
    await frame();
    const start = performance.now();
    button.click();
    const deadline = start + 60000;
    while (!(${ready})) {
      if (performance.now() > deadline) throw new Error("not ready: " + ${JSON.stringify(ready)});
      await frame();
    }
    await painted();
    return { start, end: performance.now() };
  })()`;
}

async function longTasksBetween(page: Page, start: number, end: number): Promise<Array<{ start: number; duration: number }>> {
  const all = (await page.evaluate("window.__timelineBench.longTasks")) as Array<{ start: number; duration: number }>;
  return all.filter((t) => t.start + t.duration >= start && t.start <= end);
}

function openFigures(times: number[], tasks: Array<{ duration: number }>): OpenFigures {
  return {
    opens: times.length,
    openMsMedian: round(median(times), 0),
    openMsMax: round(Math.max(...times), 0),
    longTasks: tasks.length,
    longestTaskMs: round(Math.max(0, ...tasks.map((t) => t.duration)), 0),
  };
}

const turnSel = (turnId: string) => `[data-testid="message-assistant"][data-turn-id="${turnId}"]`;

/** Opens (and closes again) the timeline of each turn in `turnIds`, then the master's inspector of the first. */
async function measureOpens(page: Page, turnIds: string[]): Promise<{ timeline: OpenFigures; inspector: OpenFigures }> {
  const times: number[] = [];
  const tasks: Array<{ start: number; duration: number }> = [];
  for (const turnId of turnIds) {
    const toggle = `${turnSel(turnId)} [data-testid="turn-stats"] [data-testid="timeline-toggle"]`;
    const { start, end } = (await page.evaluate(
      openInPage(toggle, `document.querySelector('${turnSel(turnId)} [data-testid="timeline-row"]')`),
    )) as { start: number; end: number };
    times.push(end - start);
    tasks.push(...(await longTasksBetween(page, start, end)));
    await page.locator(toggle).click();
  }
  const inspectorTimes: number[] = [];
  const inspectorTasks: Array<{ start: number; duration: number }> = [];
  for (let i = 0; i < 3; i++) {
    const button = `${turnSel(turnIds[0]!)} [data-testid="turn-stats"] [data-testid="inspect-context"]`;
    const ready = `(() => { const d = document.querySelector('[data-testid="context-inspector"]'); return d && d.open && !d.textContent.includes("Loading…"); })()`;
    const { start, end } = (await page.evaluate(openInPage(button, ready))) as { start: number; end: number };
    inspectorTimes.push(end - start);
    inspectorTasks.push(...(await longTasksBetween(page, start, end)));
    await page.keyboard.press("Escape");
    await page.locator('[data-testid="context-inspector"]').waitFor({ state: "detached" });
  }
  return { timeline: openFigures(times, tasks), inspector: openFigures(inspectorTimes, inspectorTasks) };
}

export async function runTimelineBench(options: TimelineBenchOptions): Promise<TimelineBenchResult> {
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  // On a shared machine most wall-clock long tasks are the page waiting for a core; a trace tells them apart.
  const ownTraceDir = options.trace && !options.traceDir ? mkdtempSync(path.join(tmpdir(), "delegate-timeline-trace-")) : undefined;
  try {
    const stored = await measureStored(browser, options);
    const live = await measureLive(browser, ownTraceDir ? { ...options, traceDir: ownTraceDir } : options);
    return { stored, live };
  } finally {
    await browser.close();
    if (ownTraceDir) rmSync(ownTraceDir, { recursive: true, force: true });
  }
}

type Browser = Awaited<ReturnType<typeof chromium.launch>>;

async function measureStored(browser: Browser, options: TimelineBenchOptions): Promise<TimelineBenchResult["stored"]> {
  const dataDir = mkdtempSync(path.join(tmpdir(), "delegate-timeline-bench-"));
  const app = await startAppProcess({ mongoUri: options.mongoUri, dataDir, quiet: true, env: { SESSION_SECRET: BENCH_SECRET } });
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const eq = options.cookie.indexOf("=");
    await context.addCookies([{ name: IDENTITY_COOKIE, value: options.cookie.slice(eq + 1), url: app.baseUrl }]);
    const page = await context.newPage();
    await page.addInitScript(INSTRUMENT);
    await page.goto(`${app.baseUrl}/c/${options.sessionId}`);
    await page.locator('[data-testid="turn-stats"]').last().waitFor({ timeout: 120_000 });
    // Let the load settle (hydration, the join's tail) so it is not counted against the first open.
    await page.waitForTimeout(2_000);
    // The newest turns with a subagent (those have a timeline worth drawing), newest first.
    const turnIds = (
      await page
        .locator('[data-testid="message-assistant"]')
        .evaluateAll((turns) =>
          turns.filter((t) => t.querySelector('[data-testid="subagent-panel"]')).map((t) => t.getAttribute("data-turn-id")!),
        )
    )
      .reverse()
      .slice(0, options.opens);
    if (turnIds.length === 0) throw new Error("the stored session shows no turn with a subagent");
    const figures = await measureOpens(page, turnIds);
    return { ...figures, inspectorRecords: "none (seeded turns have no model-call records: the open, the fetch and the empty state)" };
  } finally {
    await context.close();
    await app.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function measureLive(browser: Browser, options: TimelineBenchOptions): Promise<TimelineBenchResult["live"]> {
  const { subagents, callsPerSubagent } = options.live;
  const model = await startScriptedOpenAIServer((request) => liveReply(request, options.live));
  const dataDir = mkdtempSync(path.join(tmpdir(), "delegate-timeline-live-"));
  const workspace = mkdtempSync(path.join(tmpdir(), "delegate-timeline-ws-"));
  for (const name of ["a.md", "b.md", "c.md"]) writeFileSync(path.join(workspace, name), `# ${name}\n`);
  const app = await startAppProcess({
    mongoUri: options.mongoUri,
    dataDir,
    quiet: true,
    env: {
      SESSION_SECRET: BENCH_SECRET,
      WORKSPACE_DIR: workspace,
      MODEL: "scripted",
      OPENAI_BASE_URL: model.url,
      OPENAI_API_KEY: "bench",
      MODEL_MAX_RETRIES: "0",
      MAX_CHILDREN_PER_AGENT: String(Math.min(50, subagents)),
    },
  });
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  try {
    const page = await context.newPage();
    await page.addInitScript(INSTRUMENT);
    const run = async (timeline: boolean) => {
      const tracePath = options.traceDir ? path.join(options.traceDir, `timeline-${timeline ? "open" : "closed"}.json`) : undefined;
      await page.goto(app.baseUrl);
      const composer = page.getByTestId("composer");
      await composer.fill(`Survey the workspace with ${subagents} explorers`);
      await composer.press("Enter");
      await page.waitForURL(/\/c\//);
      const turn = page.getByTestId("message-assistant").last();
      const toggle = turn.getByTestId("timeline-toggle");
      await toggle.waitFor({ timeout: 60_000 });
      // A click while the new page hydrates can be lost on a busy machine: click until it opens.
      for (let tries = 0; timeline && tries < 5 && !(await turn.getByTestId("timeline-summary").isVisible()); tries++) {
        await toggle.click();
        await turn
          .getByTestId("timeline-summary")
          .waitFor({ timeout: 5_000 })
          .catch(() => undefined);
      }
      if (tracePath) await browser.startTracing(page, { path: tracePath, categories: TRACE_CATEGORIES });
      const start = (await page.evaluate("performance.now()")) as number;
      await turn.getByTestId("turn-stats").waitFor({ timeout: 600_000 });
      const end = (await page.evaluate("performance.now()")) as number;
      if (tracePath) await browser.stopTracing();
      const tasks = await longTasksBetween(page, start, end);
      const figures: LiveFigures = {
        seconds: round((end - start) / 1000, 1),
        longTasks: tasks.length,
        longTaskTotalMs: round(
          tasks.reduce((a, t) => a + t.duration, 0),
          0,
        ),
        longestTaskMs: round(Math.max(0, ...tasks.map((t) => t.duration)), 0),
      };
      if (tracePath) {
        const raw = JSON.parse(readFileSync(tracePath, "utf8")) as TraceEvent[] | { traceEvents: TraceEvent[] };
        figures.cpuLongTasks = cpuLongTasks(Array.isArray(raw) ? raw : raw.traceEvents);
      }
      return { turn, figures };
    };
    const closed = (await run(false)).figures;
    const { turn, figures: open } = await run(true);
    const summary = (await turn.getByTestId("timeline-summary").textContent()) ?? "";
    const counted = (word: string) => Number(new RegExp(`(\\d+) ${word}`).exec(summary.replace(/,/g, ""))?.[1] ?? 0);
    const runs = counted("subagents?");
    const calls = counted("tool calls?");
    if (runs !== subagents || calls !== subagents * callsPerSubagent)
      throw new Error(`the live turn drew ${runs} subagents and ${calls} calls: ${summary}`);
    const timelineRows = Number(await turn.getByTestId("turn-timeline").getAttribute("data-rows"));
    // Closed, then the same turn's timeline and its master's inspector opened again, finished.
    await turn.getByTestId("turn-stats").getByTestId("timeline-toggle").click();
    const turnId = (await turn.getAttribute("data-turn-id"))!;
    const again = await measureOpens(page, [turnId]);
    return { subagents: runs, toolCalls: calls, open, closed, timelineRows, reopen: again.timeline, inspector: again.inspector };
  } finally {
    await context.close();
    await app.stop();
    await model.close();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(workspace, { recursive: true, force: true });
  }
}

/**
 * The master spawns its explorers in waves of at most 50 (MAX_CHILDREN_PER_AGENT's limit),
 * then answers; each explorer asks for ten `list_files` calls a step until it made its
 * share, then answers. Every reply waits `replyDelayMs` first, like a model's first token.
 */
function liveReply(request: ScriptedRequest, live: TimelineBenchOptions["live"]): ScriptedResponse {
  const messages: Array<{ role: string; content?: string }> = request.body?.messages ?? [];
  const master = (messages[0]?.content ?? "").includes(MASTER_PROMPT_MARKER);
  const step = messages.filter((m) => m.role === "assistant").length;
  let reply: ScriptedResponse;
  if (master) {
    const wave = Math.min(50, live.subagents);
    const spawned = step * wave;
    reply =
      spawned >= live.subagents
        ? scriptedReply({ text: ["All ", "explorers ", "reported."] })
        : scriptedReply({
            toolCalls: Array.from({ length: Math.min(wave, live.subagents - spawned) }, (_, i) => ({
              id: `spawn${spawned + i}`,
              name: "subagent",
              argumentChunks: [JSON.stringify({ agent: "explore", task: `Survey part ${spawned + i + 1}` })],
            })),
            usage: { promptTokens: 400, completionTokens: 40 },
          });
  } else {
    const perStep = 10;
    const made = step * perStep;
    reply =
      made >= live.callsPerSubagent
        ? scriptedReply({ text: ["Three ", "markdown ", "files."], usage: { promptTokens: 300, completionTokens: 20 } })
        : scriptedReply({
            toolCalls: Array.from({ length: Math.min(perStep, live.callsPerSubagent - made) }, (_, i) => ({
              id: `s${step}c${i}`,
              name: "list_files",
              argumentChunks: [JSON.stringify({ path: "." })],
            })),
            usage: { promptTokens: 300, completionTokens: 30 },
          });
  }
  if (reply.type === "stream") reply.steps.splice(1, 0, { delayMs: live.replyDelayMs });
  return reply;
}
