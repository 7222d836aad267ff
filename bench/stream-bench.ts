import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { chromium, type Browser, type CDPSession, type Page } from "playwright-core";
import { startAppProcess } from "@/e2e/app-process";
import { MASTER_PROMPT_MARKER } from "@/lib/agent/prompts";
import { CHROMIUM_ARGS } from "@/playwright.config";
import {
  scriptedReply,
  startScriptedOpenAIServer,
  type ScriptedRequest,
  type ScriptedResponse,
  type ScriptedStreamStep,
} from "@/test/support/model/scripted-openai-server";
import { BENCH_SECRET } from "./bench-app";
import { CHROMIUM_PATH } from "./browser-bench";
import { median, percentile, round } from "./stats";

/**
 * Benchmark 5 (browser side): is the stream smooth? The real app (production build) runs
 * on the real OpenAI HTTP adapter against a scripted OpenAI-compatible server: the master
 * spawns five subagents that stream markdown (headings, lists, tables, code) at a set
 * total rate. Chromium at 1440×900 shows the chat with the five panels expanded (and, in
 * the full run, collapsed) while the bench types into the composer. Measured in the page:
 * long tasks (PerformanceObserver), frames per second from a requestAnimationFrame loop,
 * keydown → next paint (rAF, then a message posted after it), and the heap after a forced
 * garbage collection at the start and the end of the stream.
 */

export interface StreamBenchOptions {
  /** Database URI including the name (the app writes its chats there). */
  mongoUri: string;
  /** Total tokens per second across the five subagents. */
  tokensPerSecond: number;
  /** How long each subagent streams. */
  seconds: number;
  /** Panel states to measure, each on a fresh chat. */
  variants: Array<"expanded" | "collapsed">;
  /**
   * A folder to write a Chromium performance trace of each variant's measured stream to
   * (`<variant>.json`, for bench/stream-profile.ts). Tracing slows the page: its figures
   * are for finding causes, not for the record.
   */
  traceDir?: string;
}

export interface StreamFigures {
  panels: "expanded" | "collapsed";
  /** The set total rate; `seconds` says how long the page took to show it all. */
  tokensPerSecond: number;
  tokens: number;
  seconds: number;
  longTasks: number;
  longTaskTotalMs: number;
  longestTaskMs: number;
  fpsMean: number;
  /** Frames in the worst whole second of the stream. */
  fpsWorstSecond: number;
  /** Frames in each whole second of the stream, in order. */
  fpsPerSecond: number[];
  keystrokes: number;
  keyPaintP50Ms: number;
  keyPaintP95Ms: number;
  domNodes: number;
  /**
   * Elements inside the subagent panels: the most seen while they streamed, and at the end:
   * what the open panels put in the DOM (domNodes counts the whole document, detached
   * nodes not yet collected included).
   */
  panelNodesMax: number;
  panelNodesEnd: number;
  /**
   * Main-thread time while streaming (Chromium's TaskDuration and ScriptDuration), per
   * frame: the stream is handed to React once per frame, so this is the cost of one batch
   * of tokens (rendering and painting it included), whatever the frame rate.
   */
  taskMsPerFrame: number;
  scriptMsPerFrame: number;
  heapStartMb: number;
  heapEndMb: number;
  /** Heap growth after GC per 1,000 streamed tokens (the streamed text itself is ~5 KB of it). */
  heapKbPer1kTokens: number;
}

export const STREAM_SUBAGENTS = 5;
const START_DELAY_MS = 3_000;

/** 1,000 tokens/s in all for 15 s, panels expanded then collapsed (the full run). */
export const STREAM_FULL = { tokensPerSecond: 1_000, seconds: 15, variants: ["expanded", "collapsed"] } satisfies Omit<
  StreamBenchOptions,
  "mongoUri"
>;
export const STREAM_SMOKE = { tokensPerSecond: 1_000, seconds: 3, variants: ["expanded"] } satisfies Omit<StreamBenchOptions, "mongoUri">;

export async function runStreamBench(options: StreamBenchOptions): Promise<StreamFigures[]> {
  const perAgent = Math.round((options.tokensPerSecond / STREAM_SUBAGENTS) * options.seconds);
  const tokens = markdownTokens(perAgent);
  const model = await startScriptedOpenAIServer((request) => reply(request, tokens, options.tokensPerSecond / STREAM_SUBAGENTS));
  const dataDir = mkdtempSync(path.join(tmpdir(), "delegate-stream-bench-"));
  const workspace = mkdtempSync(path.join(tmpdir(), "delegate-stream-ws-"));
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
      URL_FETCH_ENABLED: "false",
      MAX_CHILDREN_PER_AGENT: String(STREAM_SUBAGENTS),
    },
  });
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: [...CHROMIUM_ARGS, "--enable-precise-memory-info"] });
  try {
    const out: StreamFigures[] = [];
    for (const panels of options.variants) {
      const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
      try {
        const trace = options.traceDir ? { browser, path: path.join(options.traceDir, `${panels}.json`) } : undefined;
        out.push({
          ...(await measure(await context.newPage(), app.baseUrl, panels, perAgent * STREAM_SUBAGENTS, trace)),
          tokensPerSecond: options.tokensPerSecond,
        });
      } finally {
        await context.close();
      }
    }
    return out;
  } finally {
    await browser.close();
    await app.stop();
    await model.close();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(workspace, { recursive: true, force: true });
  }
}

/** The master spawns five subagents and sums up; each subagent streams the markdown. */
function reply(request: ScriptedRequest, tokens: string[], perAgentRate: number): ScriptedResponse {
  const messages: Array<{ role: string; content?: string }> = request.body?.messages ?? [];
  const master = (messages[0]?.content ?? "").includes(MASTER_PROMPT_MARKER);
  if (master) {
    if (messages.at(-1)?.role === "tool") return scriptedReply({ text: ["All ", "five ", "modules ", "compared."] });
    return scriptedReply({
      toolCalls: Array.from({ length: STREAM_SUBAGENTS }, (_, i) => ({
        id: `spawn${i}`,
        name: "subagent",
        argumentChunks: [JSON.stringify({ agent: "explore", task: `Describe module ${i + 1}` })],
      })),
    });
  }
  // Tokens go out in 10 ms ticks: the rate holds without a timer per token.
  const perTick = perAgentRate / 100;
  // A pause before the first token: the bench expands the panels before they stream.
  const steps: ScriptedStreamStep[] = [{ delta: { role: "assistant", content: "" } }, { delayMs: START_DELAY_MS }];
  let due = 0;
  for (const token of tokens) {
    steps.push({ delta: { content: token } });
    due += 1;
    if (due >= perTick) {
      steps.push({ delayMs: 10 });
      due -= perTick;
    }
  }
  steps.push({ finishReason: "stop" }, { usage: { promptTokens: 100, completionTokens: tokens.length } });
  return { type: "stream", steps, end: "done" };
}

/** About `count` word-sized tokens of the markdown a model writes: headings, prose, lists, tables, code. */
export function markdownTokens(count: number): string[] {
  const tokens: string[] = [];
  for (let n = 1; tokens.length < count; n++) {
    const section = [
      `## Module ${n}`,
      "",
      `The module **parses** its input, keeps a \`cache\` of results and reports errors to the caller; section ${n} lists what it does and how.`,
      "",
      "- reads the configuration once at start",
      "- validates every request with `zod`",
      "  - rejects unknown fields",
      "  - keeps the error path short",
      "1. first the parser",
      "2. then the checker",
      "",
      "| file | lines | role |",
      "|---|---:|---|",
      `| parse-${n}.ts | ${100 + n} | reads the input |`,
      `| check-${n}.ts | ${50 + n} | validates it |`,
      "",
      "```ts",
      `export function handle${n}(input: string): number {`,
      `  const parts = input.split(",").map((p) => p.trim());`,
      `  return parts.filter((p) => p.length > ${n % 7}).length;`,
      "}",
      "```",
      "",
      "",
    ].join("\n");
    tokens.push(...(section.match(/\S+\s*|\s+/g) ?? []));
  }
  return tokens.slice(0, count);
}

declare global {
  interface Window {
    __streamBench?: { longTasks: Array<{ start: number; duration: number }>; frames: number[]; keys: number[]; panelNodesMax: number };
  }
}

/**
 * Installed before the app's scripts, so the observers see the whole life of the page. A
 * string, not a function: tsx wraps named functions in a helper the page does not have.
 * Painted = the frame after the keydown has been drawn: a message posted from the next
 * animation frame runs once that frame's paint is done.
 */
const INSTRUMENT = `(() => {
  const state = { longTasks: [], frames: [], keys: [], panelNodesMax: 0 };
  window.__streamBench = state;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) state.longTasks.push({ start: entry.startTime, duration: entry.duration });
  }).observe({ type: "longtask", buffered: true });
  const frame = (t) => {
    state.frames.push(t);
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
  document.addEventListener("keydown", (event) => {
    const t0 = event.timeStamp;
    requestAnimationFrame(() => {
      const channel = new MessageChannel();
      channel.port1.onmessage = () => state.keys.push(performance.now() - t0);
      channel.port2.postMessage(null);
    });
  }, true);
})();`;

/** Counts the elements inside the top-level subagent panels, keeps the largest count seen, returns this one. */
const PANEL_NODES_SAMPLE = `(() => {
  let n = 0;
  for (const panel of document.querySelectorAll('[data-testid="subagent-panel"][data-depth="1"]')) n += panel.getElementsByTagName("*").length;
  window.__streamBench.panelNodesMax = Math.max(window.__streamBench.panelNodesMax, n);
  return n;
})()`;

/** What a trace records: tasks, JavaScript samples with their stacks, GC, style, layout and paint. */
export const TRACE_CATEGORIES = [
  "devtools.timeline",
  "disabled-by-default-devtools.timeline",
  "disabled-by-default-devtools.timeline.frame",
  "v8",
  "v8.execute",
  "disabled-by-default-v8.cpu_profiler",
  "disabled-by-default-v8.gc",
  "blink.user_timing",
  "toplevel",
];

async function measure(
  page: Page,
  baseUrl: string,
  panels: "expanded" | "collapsed",
  expectedTokens: number,
  trace?: { browser: Browser; path: string },
): Promise<Omit<StreamFigures, "tokensPerSecond">> {
  await page.addInitScript(INSTRUMENT);
  const cdp = await page.context().newCDPSession(page);
  await page.goto(baseUrl);
  const composer = page.getByTestId("composer");
  await composer.fill("Compare the five modules");
  await composer.press("Enter");
  await page.waitForURL(/\/c\//);
  const toggles = page.getByTestId("subagent-toggle");
  await toggles.nth(STREAM_SUBAGENTS - 1).waitFor({ timeout: 60_000 });
  if (panels === "expanded") for (let i = 0; i < STREAM_SUBAGENTS; i++) await toggles.nth(i).click();

  const heapStart = await heapAfterGc(cdp);
  await cdp.send("Performance.enable");
  const metricsStart = await mainThreadSeconds(cdp);
  if (trace) await trace.browser.startTracing(page, { path: trace.path, categories: TRACE_CATEGORIES });
  const start = await page.evaluate(() => performance.now());
  await composer.click();
  const running = page.locator('[data-testid="subagent-panel"][data-status="running"]');
  let keystrokes = 0;
  // A keystroke every 200 ms while any panel streams, as a person typing a follow-up; the
  // panels' elements are counted every second (a count of a few thousand takes ~1 ms).
  while ((await running.count()) > 0) {
    await page.keyboard.press(keystrokes % 10 === 9 ? "Backspace" : "a");
    keystrokes++;
    if (keystrokes % 5 === 0) await page.evaluate(PANEL_NODES_SAMPLE);
    await page.waitForTimeout(200);
  }
  const end = await page.evaluate(() => performance.now());
  const metricsEnd = await mainThreadSeconds(cdp);
  if (trace) await trace.browser.stopTracing();
  if (end - start < 1_000)
    throw new Error("the stream ended before the measurement began (the machine is too busy to expand the panels in time)");
  await page.waitForTimeout(300);
  const heapEnd = await heapAfterGc(cdp);
  const { nodes } = (await cdp.send("Memory.getDOMCounters")) as { nodes: number };
  const panelNodesEnd = await page.evaluate<number>(PANEL_NODES_SAMPLE);
  const raw = await page.evaluate(() => window.__streamBench!);

  const tasks = raw.longTasks.filter((t) => t.start >= start && t.start < end);
  const frames = raw.frames.filter((t) => t >= start && t < end);
  const wholeSeconds = Math.max(1, Math.floor((end - start) / 1000));
  const perSecond = Array.from(
    { length: wholeSeconds },
    (_, s) => frames.filter((t) => t >= start + s * 1000 && t < start + (s + 1) * 1000).length,
  );
  const keys = raw.keys.slice(-keystrokes);
  const seconds = (end - start) / 1000;
  return {
    panels,
    tokens: expectedTokens,
    seconds: round(seconds, 1),
    longTasks: tasks.length,
    longTaskTotalMs: round(
      tasks.reduce((a, t) => a + t.duration, 0),
      0,
    ),
    longestTaskMs: round(Math.max(0, ...tasks.map((t) => t.duration)), 0),
    fpsMean: round(frames.length / seconds, 0),
    fpsWorstSecond: Math.min(...perSecond),
    fpsPerSecond: perSecond,
    keystrokes: keys.length,
    keyPaintP50Ms: round(median(keys), 0),
    keyPaintP95Ms: round(percentile(keys, 95), 0),
    domNodes: nodes,
    panelNodesMax: Math.max(raw.panelNodesMax, panelNodesEnd),
    panelNodesEnd,
    taskMsPerFrame: round(((metricsEnd.task - metricsStart.task) * 1000) / Math.max(1, frames.length), 2),
    scriptMsPerFrame: round(((metricsEnd.script - metricsStart.script) * 1000) / Math.max(1, frames.length), 2),
    heapStartMb: round(heapStart / 2 ** 20, 1),
    heapEndMb: round(heapEnd / 2 ** 20, 1),
    heapKbPer1kTokens: round((heapEnd - heapStart) / 1024 / (expectedTokens / 1000), 0),
  };
}

async function mainThreadSeconds(cdp: CDPSession): Promise<{ task: number; script: number }> {
  const { metrics } = (await cdp.send("Performance.getMetrics")) as { metrics: Array<{ name: string; value: number }> };
  const value = (name: string) => metrics.find((m) => m.name === name)?.value ?? 0;
  return { task: value("TaskDuration"), script: value("ScriptDuration") };
}

async function heapAfterGc(cdp: CDPSession): Promise<number> {
  await cdp.send("HeapProfiler.collectGarbage");
  const { usedSize } = (await cdp.send("Runtime.getHeapUsage")) as { usedSize: number };
  return usedSize;
}
