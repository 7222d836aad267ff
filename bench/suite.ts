import os from "node:os";
import { assertBrowserReady, runBrowserBench, type BrowserResult } from "./browser-bench";
import type { BenchDatabase } from "./bench-database";
import { AUDIT_FULL, AUDIT_SMOKE, runAuditBench, type AuditResult } from "./audit-bench";
import { runContextBench, type ContextResult } from "./context-bench";
import { MARKUP_FULL, MARKUP_SMOKE, runMarkupBench, type MarkupResult } from "./markup-bench";
import { RELAY_FULL, RELAY_SMOKE, runRelayBench, type RelayResult } from "./relay-bench";
import { RELAY_COMPARE_FULL, RELAY_COMPARE_SMOKE, runRelayCompare, type RelayCompareResult } from "./relay-compare";
import { runStorageBench, STORAGE_FULL, STORAGE_SMOKE, type StorageResult } from "./storage-bench";
import { RELOAD_FULL, RELOAD_SMOKE, runReloadBench, type ReloadResult } from "./reload-bench";
import { runSearchBench, SEARCH_FULL, SEARCH_SMOKE, type SearchBenchResult } from "./search-bench";
import { STREAM_FULL, STREAM_SMOKE, runStreamBench, type StreamFigures } from "./stream-bench";
import { TIMELINE_FULL, TIMELINE_SMOKE, runTimelineBench, type TimelineBenchResult } from "./timeline-bench";
import { runTracingBench, type TracingBenchResult } from "./tracing-bench";

/**
 * The four benchmarks in one run, at full size or at smoke size (tiny, each once — what
 * the test suite runs so the benchmarks cannot rot). The order keeps the pure CPU work
 * first and the browser, the heaviest neighbour, last.
 */
export type BenchMode = "full" | "smoke";

export interface BenchReport {
  mode: BenchMode;
  startedAt: string;
  durationS: number;
  machine: {
    cpus: number;
    cpuModel: string;
    memoryGb: number;
    node: string;
    platform: string;
    database: string;
    loadAverageAtStart: number;
  };
  markup: MarkupResult;
  relay: RelayResult[];
  /** The relay against raw Socket.IO in the same run, clients in another process. */
  relayCompare: RelayCompareResult[];
  /** The relay and whole turns with tracing off and on, in fresh processes; absent in reports from before it existed. */
  tracing?: TracingBenchResult;
  /** Bytes written to MongoDB for one streamed turn against what it stores. */
  storage: StorageResult;
  reload: ReloadResult[];
  context: ContextResult;
  /** Model-call records per turn; a large chat exported and imported. */
  audit?: AuditResult;
  /** Search and the sidebar with 10,000 chats. */
  search?: SearchBenchResult;
  browser: BrowserResult | { skipped: string };
  /** Chromium while five subagents stream markdown; absent only with --no-browser. */
  stream: StreamFigures[] | { skipped: string };
  /** The trace timeline and the context inspector in Chromium; absent in reports from before they existed. */
  timeline?: TimelineBenchResult | { skipped: string };
}

export interface SuiteOptions {
  mode: BenchMode;
  db: BenchDatabase;
  /** false skips Chromium (--no-browser); otherwise it runs, building the app if needed, or the run fails. */
  browser: boolean;
  /** Progress lines (stderr in the CLI). */
  progress?: (line: string) => void;
}

export async function runSuite(options: SuiteOptions): Promise<BenchReport> {
  const { mode, db } = options;
  const say = options.progress ?? (() => undefined);
  const full = mode === "full";
  const started = Date.now();
  // Other work on the machine skews every figure; the 1-minute load says how much there was.
  const loadAverageAtStart = Math.round(os.loadavg()[0]! * 100) / 100;

  say("markup: applying the recorded stream (tree transforms and naive baseline)…");
  const markup = runMarkupBench(full ? MARKUP_FULL : MARKUP_SMOKE);
  say("relay: DroneSession → Socket.IO → socket.io-client…");
  const relay = await runRelayBench(db.store, full ? RELAY_FULL : RELAY_SMOKE);
  say("relay vs raw Socket.IO: viewers in another process…");
  const relayCompare = await runRelayCompare(db.store, full ? RELAY_COMPARE_FULL : RELAY_COMPARE_SMOKE, say);
  say("tracing: the relay and whole turns, tracing off and on in alternating processes…");
  const tracing = await runTracingBench({ mongoUri: db.uri, rounds: full ? 2 : 1, size: mode, progress: say });
  say("storage: bytes written to MongoDB for a streamed turn, against what it stores…");
  const storage = await runStorageBench(db, full ? STORAGE_FULL : STORAGE_SMOKE);
  say("reload: seeding sessions, HTTP and session:join, counting database commands…");
  const reloaded = await runReloadBench(db, full ? RELOAD_FULL : RELOAD_SMOKE);
  const largest = reloaded.sizes.at(-1)!;
  say("context: buildSessionContext on the largest session…");
  const context = await runContextBench(db.store, largest.sessionId, full ? 50 : 3);
  say("audit: model-call records per turn; exporting and importing a large chat…");
  const audit = await runAuditBench(db, full ? AUDIT_FULL : AUDIT_SMOKE);
  say("search: one person with many chats — session:search latency, the sidebar's pages (and in Chromium)…");
  // The sidebar's Chromium part runs with the other browser parts only (and needs the build).
  const search = await runSearchBench(db, { ...(full ? SEARCH_FULL : SEARCH_SMOKE), browser: full && options.browser }, say);

  let browser: BrowserResult | { skipped: string };
  let stream: StreamFigures[] | { skipped: string };
  let timeline: TimelineBenchResult | { skipped: string };
  if (options.browser) {
    // Never skipped for want of a build or a browser: a missing one fails the run, says why.
    assertBrowserReady();
    say("browser: Chromium loading the largest session from the production build…");
    browser = await runBrowserBench({
      mongoUri: db.uri,
      cookie: reloaded.cookie,
      sessionId: largest.sessionId,
      lastTurnId: largest.lastTurnId,
      turns: largest.turns,
      loads: full ? 4 : 1,
      buildIfMissing: true,
    });
    say("stream: Chromium while five subagents stream markdown through the OpenAI HTTP adapter…");
    stream = await runStreamBench({ mongoUri: db.uri, ...(full ? STREAM_FULL : STREAM_SMOKE) });
    say("timeline: the trace timeline and the inspector on the largest session, then a live turn of many subagents…");
    timeline = await runTimelineBench({
      mongoUri: db.uri,
      cookie: reloaded.cookie,
      sessionId: largest.sessionId,
      ...(full ? TIMELINE_FULL : TIMELINE_SMOKE),
    });
  } else {
    browser = { skipped: "--no-browser" };
    stream = { skipped: "--no-browser" };
    timeline = { skipped: "--no-browser" };
  }

  return {
    mode,
    startedAt: new Date(started).toISOString(),
    durationS: Math.round((Date.now() - started) / 1000),
    machine: {
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model.trim() ?? "unknown",
      memoryGb: Math.round(os.totalmem() / 2 ** 30),
      node: process.version,
      platform: `${os.platform()} ${os.release()}`,
      database: db.kind,
      loadAverageAtStart,
    },
    markup,
    relay,
    relayCompare,
    tracing,
    storage,
    reload: reloaded.sizes,
    context,
    audit,
    search,
    browser,
    stream,
    timeline,
  };
}
