import type { AgentEvent, ChatTurn } from "@/lib/contracts";
import { serializeTurn } from "@/lib/markup/serialize";
import { applyEvent, newTurn } from "@/lib/turn/reduce";
import { applyEventNaive } from "@/test/support/markup/naive-baseline";
import { parseTurnMarkup } from "@/test/support/markup/parse";
import { recordedStream } from "@/test/support/turn/recorded-stream";
import { median, round, summarize } from "./stats";

/**
 * Benchmark 1: the cost of folding one streamed event into a turn, with the one turn
 * reducer (`applyEvent` on the turn tree) against the naive baseline (parse and
 * re-serialise the whole `<SubagentExecution>` markup string per event), over the same
 * recorded stream in the same process. The naive cost grows with the message; the point
 * is to show by how much.
 */

export interface MarkupBenchOptions {
  subagents: number;
  tokensPerSubagent: number;
  /** Plain tool calls per subagent; total nested calls = subagents × this. */
  nestedToolCallsPerSubagent: number;
  /** Message sizes (markup characters) at which the per-event cost is reported. */
  sizes: number[];
  /** Events measured after the message first reaches each size. */
  sizeWindow: number;
  seed?: number;
  /** Also compare the two paths after every event (untimed; for the smoke test). */
  verifyEachEvent?: boolean;
}

export const MARKUP_FULL: MarkupBenchOptions = {
  subagents: 5,
  tokensPerSubagent: 2_000,
  nestedToolCallsPerSubagent: 40,
  sizes: [1_000, 10_000, 100_000],
  sizeWindow: 200,
};

export const MARKUP_SMOKE: MarkupBenchOptions = {
  subagents: 2,
  tokensPerSubagent: 30,
  nestedToolCallsPerSubagent: 2,
  sizes: [1_000],
  sizeWindow: 10,
  verifyEachEvent: true,
};

export interface PhaseFigures {
  medianUs: number;
  p99Us: number;
}

export interface PathFigures {
  early: PhaseFigures;
  late: PhaseFigures;
  totalMs: number;
}

export interface SizePoint {
  chars: number;
  /** Actual markup length where the window starts (the first event at or past `chars`). */
  actualChars: number;
  fastMedianUs: number;
  naiveMedianUs: number;
  /** One full `serializeTurn` at that size: what a consumer needing the string pays. */
  serializeUs: number;
  ratio: number;
}

export interface MarkupResult {
  events: number;
  subagents: number;
  responseTokens: number;
  nestedToolCalls: number;
  finalChars: number;
  fast: PathFigures;
  naive: PathFigures;
  ratio: { total: number; early: number; late: number };
  atSize: SizePoint[];
  /** Whole-message serialize and parse of the final markup (reload and storage cost). */
  serializeFinalUs: number;
  parseFinalUs: number;
  /** Fast and naive paths produced the same markup at every checkpoint and at the end. */
  identical: boolean;
}

export function runMarkupBench(options: MarkupBenchOptions): MarkupResult {
  const stream = recordedStream({
    seed: options.seed ?? 7,
    subagents: options.subagents,
    parallel: true,
    tokensPerSubagent: options.tokensPerSubagent,
    nestedToolCalls: options.nestedToolCallsPerSubagent,
    // Plain prose: escaping-heavy hostile text would inflate both paths alike.
    hostile: false,
  });
  const start = newTurn({ sessionId: stream.sessionId, turnId: stream.turnId, prompt: stream.prompt, createdAt: stream.createdAt });
  const events = stream.events.slice(1);
  const n = events.length;

  // Warm both paths' code (JIT) on the cheap first tenth of the stream.
  events.slice(0, Math.ceil(n / 10)).reduce(applyEventNaive, serializeTurn(start));
  foldAll(start, events);

  // The naive pass first: it yields the markup length before every event, which places
  // the size windows; the fast pass then keeps the docs at those same events.
  const naiveUs = new Float64Array(n);
  const lengthBefore = new Float64Array(n);
  /** The naive markup just before the first event at or past each size. */
  const naiveAt = new Map<number, string>();
  const starts = new Map<number, number>();
  let markup = serializeTurn(start);
  const naiveStart = performance.now();
  for (let i = 0; i < n; i++) {
    lengthBefore[i] = markup.length;
    for (const chars of options.sizes) {
      if (!starts.has(chars) && markup.length >= chars) {
        starts.set(chars, i);
        naiveAt.set(i, markup);
      }
    }
    const t = process.hrtime.bigint();
    markup = applyEventNaive(markup, events[i]!);
    naiveUs[i] = Number(process.hrtime.bigint() - t) / 1_000;
  }
  const naiveTotalMs = performance.now() - naiveStart;

  const windows = options.sizes.map((chars) => {
    const start = starts.get(chars) ?? -1;
    return { chars, start, end: start < 0 ? -1 : Math.min(n, start + options.sizeWindow) };
  });
  const checkpoints = new Set(windows.filter((w) => w.start >= 0).map((w) => w.start));

  const fastUs = new Float64Array(n);
  const docAt = new Map<number, ChatTurn>();
  let doc = start;
  const fastStart = performance.now();
  for (let i = 0; i < n; i++) {
    if (checkpoints.has(i)) docAt.set(i, doc);
    const t = process.hrtime.bigint();
    doc = applyEvent(doc, events[i]!);
    fastUs[i] = Number(process.hrtime.bigint() - t) / 1_000;
  }
  const fastTotalMs = performance.now() - fastStart;

  let identical = serializeTurn(doc) === markup;
  for (const index of checkpoints) identical &&= serializeTurn(docAt.get(index)!) === naiveAt.get(index);
  if (options.verifyEachEvent) identical &&= agreeAfterEachEvent(start, events);

  const tenth = Math.max(1, Math.floor(n / 10));
  const phase = (values: Float64Array, from: number, to: number): PhaseFigures => {
    const s = summarize(Array.from(values.subarray(from, to)));
    return { medianUs: round(s.median, 2), p99Us: round(s.p99, 2) };
  };
  const figures = (values: Float64Array, totalMs: number): PathFigures => ({
    early: phase(values, 0, tenth),
    late: phase(values, n - tenth, n),
    totalMs: round(totalMs, 1),
  });
  const fast = figures(fastUs, fastTotalMs);
  const naive = figures(naiveUs, naiveTotalMs);

  const atSize: SizePoint[] = windows
    .filter((w) => w.start >= 0)
    .map((w) => {
      const fastMedian = median(Array.from(fastUs.subarray(w.start, w.end)));
      const naiveMedian = median(Array.from(naiveUs.subarray(w.start, w.end)));
      const at = docAt.get(w.start)!;
      return {
        chars: w.chars,
        actualChars: lengthBefore[w.start]!,
        fastMedianUs: round(fastMedian, 2),
        naiveMedianUs: round(naiveMedian, 2),
        serializeUs: round(
          timeUs(() => serializeTurn(at), 20),
          2,
        ),
        ratio: round(naiveMedian / fastMedian, 1),
      };
    });

  return {
    events: n,
    subagents: options.subagents,
    responseTokens: countData(events, "token"),
    nestedToolCalls: countData(events, "tool_call"),
    finalChars: markup.length,
    fast,
    naive,
    ratio: {
      total: round(naiveTotalMs / fastTotalMs, 1),
      early: round(naive.early.medianUs / fast.early.medianUs, 1),
      late: round(naive.late.medianUs / fast.late.medianUs, 1),
    },
    atSize,
    serializeFinalUs: round(
      timeUs(() => serializeTurn(doc), 10),
      1,
    ),
    parseFinalUs: round(
      timeUs(() => parseTurnMarkup(markup), 10),
      1,
    ),
    identical,
  };
}

function foldAll(start: ChatTurn, events: readonly AgentEvent[]): ChatTurn {
  let turn = start;
  for (const event of events) turn = applyEvent(turn, event);
  return turn;
}

function agreeAfterEachEvent(start: ChatTurn, events: readonly AgentEvent[]): boolean {
  let turn = start;
  let markup = serializeTurn(start);
  for (const event of events) {
    turn = applyEvent(turn, event);
    markup = applyEventNaive(markup, event);
    if (serializeTurn(turn) !== markup) return false;
  }
  return true;
}

function countData(events: readonly AgentEvent[], kind: "token" | "tool_call"): number {
  return events.filter((e) => e.type === "subagent_data" && e.data.kind === kind).length;
}

/** Median microseconds of `reps` calls. */
function timeUs(fn: () => unknown, reps: number): number {
  const samples: number[] = [];
  for (let i = 0; i < reps; i++) {
    const t = process.hrtime.bigint();
    fn();
    samples.push(Number(process.hrtime.bigint() - t) / 1_000);
  }
  return median(samples);
}
