/**
 * Reads a Chromium performance trace (the JSON of `browser.startTracing`) and says what
 * each long task of the page's main thread spent its time on: the self time of every
 * timeline event inside it (script, GC, style, layout, paint…) and the JavaScript
 * functions the sampling profiler caught most often. Pure: trace in, figures out.
 */

export interface TraceEvent {
  name: string;
  cat?: string;
  ph: string;
  ts: number;
  dur?: number;
  /** CPU time of the thread within the event: far below `dur` means the thread waited for a core. */
  tdur?: number;
  pid: number;
  tid: number;
  id?: string;
  args?: Record<string, unknown>;
}

export interface LongTaskCause {
  startMs: number;
  durationMs: number;
  /** The main thread's CPU time in the task (a busy machine makes it wait for a core). */
  cpuMs: number;
  /** Self time per timeline event name, largest first. */
  events: Array<{ name: string; selfMs: number }>;
  /** JavaScript functions by sampled self time, largest first. */
  selfFunctions: Array<{ fn: string; ms: number }>;
  /** Functions on the stack of the samples, by time under them (inclusive), largest first. */
  underFunctions: Array<{ fn: string; ms: number }>;
}

export const LONG_TASK_MS = 50;

/** The main thread's tasks of at least `thresholdMs` (wall time), each with what it spent its time on (`topN` of each list). */
export function attributeLongTasks(events: readonly TraceEvent[], thresholdMs = LONG_TASK_MS, topN = 12): LongTaskCause[] {
  const main = rendererMainThread(events);
  if (!main) return [];
  const onMain = events.filter((e) => e.pid === main.pid && e.tid === main.tid && e.ph === "X" && typeof e.dur === "number");
  onMain.sort((a, b) => a.ts - b.ts || b.dur! - a.dur!);
  const tasks = onMain.filter((e) => e.name === "RunTask" && e.dur! >= thresholdMs * 1000);
  const samples = profileSamples(events, main);
  const t0 = onMain[0]?.ts ?? 0;
  return tasks.map((task) => {
    const end = task.ts + task.dur!;
    const inside = onMain.filter((e) => e !== task && e.ts >= task.ts && e.ts + e.dur! <= end);
    const taskSamples = samples.filter((s) => s.ts >= task.ts && s.ts < end);
    return {
      startMs: round((task.ts - t0) / 1000),
      durationMs: round(task.dur! / 1000),
      cpuMs: round((task.tdur ?? task.dur!) / 1000),
      events: top(selfTimes(task, inside), "name", "selfMs", topN),
      selfFunctions: top(
        sampleTimes(taskSamples, (s) => [s.stack[0]!]),
        "fn",
        "ms",
        topN,
      ),
      underFunctions: top(
        sampleTimes(taskSamples, (s) => [...new Set(s.stack)]),
        "fn",
        "ms",
        topN,
      ),
    };
  });
}

/**
 * How many of the main thread's tasks kept the CPU busy for more than `thresholdMs`. Unlike
 * the page's long-task count (wall time), a busy machine does not inflate it: a task that
 * waited for a core is long on the clock but short here.
 */
export function cpuLongTasks(events: readonly TraceEvent[], thresholdMs = LONG_TASK_MS): number {
  const main = rendererMainThread(events);
  if (!main) return 0;
  const onMain = events.filter((e) => e.pid === main.pid && e.tid === main.tid && e.ph === "X");
  // The tracer's own start (the sampling profiler starting) is not the page's work.
  const tracerStarts = onMain.filter((e) => e.name === TRACER_START);
  const long = onMain.filter((e) => e.name === "RunTask" && (e.tdur ?? e.dur ?? 0) > thresholdMs * 1000);
  return long.filter((task) => !tracerStarts.some((s) => s.ts >= task.ts && s.ts < task.ts + task.dur!)).length;
}

const TRACER_START = "CpuProfiler::StartProfiling";

function rendererMainThread(events: readonly TraceEvent[]): { pid: number; tid: number } | null {
  // The page's renderer: the CrRendererMain thread with the most timeline work.
  const candidates = events.filter(
    (e) => e.ph === "M" && e.name === "thread_name" && (e.args as { name?: string } | undefined)?.name === "CrRendererMain",
  );
  let best: { pid: number; tid: number } | null = null;
  let bestCount = -1;
  for (const c of candidates) {
    const count = events.filter((e) => e.pid === c.pid && e.tid === c.tid && e.name === "RunTask").length;
    if (count > bestCount) {
      best = { pid: c.pid, tid: c.tid };
      bestCount = count;
    }
  }
  return best;
}

/** Each event's time minus that of the events nested directly in it. */
function selfTimes(task: TraceEvent, inside: readonly TraceEvent[]): Map<string, number> {
  const out = new Map<string, number>();
  const stack: Array<{ e: TraceEvent; self: number }> = [{ e: task, self: task.dur! }];
  const pop = () => {
    const done = stack.pop()!;
    out.set(done.e.name, (out.get(done.e.name) ?? 0) + done.self);
  };
  for (const e of inside) {
    while (stack.length > 1 && e.ts >= stack.at(-1)!.e.ts + stack.at(-1)!.e.dur!) pop();
    stack.at(-1)!.self -= e.dur!;
    stack.push({ e, self: e.dur! });
  }
  while (stack.length > 0) pop();
  return out;
}

interface Sample {
  ts: number;
  /** Leaf first. */
  stack: string[];
  weight: number;
}

interface ProfileNode {
  id: number;
  parent?: number;
  callFrame: { functionName: string; url?: string; lineNumber?: number; columnNumber?: number };
}

/** The V8 sampling profiler's samples on the main thread, with their stacks and their time. */
function profileSamples(events: readonly TraceEvent[], main: { pid: number; tid: number }): Sample[] {
  const nodes = new Map<number, ProfileNode>();
  const out: Sample[] = [];
  const starts = new Map<string, number>();
  for (const e of events) {
    if (e.pid !== main.pid || e.name !== "Profile") continue;
    const data = (e.args as { data?: { startTime?: number } }).data;
    if (e.id && data?.startTime !== undefined) starts.set(e.id, data.startTime);
  }
  const clocks = new Map<string, number>();
  const raw: Array<{ ts: number; node: number }> = [];
  for (const e of events) {
    if (e.pid !== main.pid || e.name !== "ProfileChunk" || !e.id) continue;
    const data = (e.args as { data?: { cpuProfile?: { nodes?: ProfileNode[]; samples?: number[] }; timeDeltas?: number[] } }).data;
    for (const node of data?.cpuProfile?.nodes ?? []) nodes.set(node.id, node);
    // Sample times are deltas, running on from the profile's start across its chunks.
    let clock = clocks.get(e.id) ?? starts.get(e.id) ?? e.ts;
    const ids = data?.cpuProfile?.samples ?? [];
    const deltas = data?.timeDeltas ?? [];
    for (let i = 0; i < ids.length; i++) {
      clock += deltas[i] ?? 0;
      raw.push({ ts: clock, node: ids[i]! });
    }
    clocks.set(e.id, clock);
  }
  raw.sort((a, b) => a.ts - b.ts);
  for (let i = 0; i < raw.length; i++) {
    const { ts, node } = raw[i]!;
    // A sample stands for the time until the next one (capped: a gap is the profiler idle, not this stack).
    const weight = i + 1 < raw.length ? Math.min(raw[i + 1]!.ts - ts, 2_000) : 0;
    const stack: string[] = [];
    for (let n = nodes.get(node); n; n = n.parent === undefined ? undefined : nodes.get(n.parent)) stack.push(label(n));
    out.push({ ts, weight, stack: stack.length > 0 ? stack : ["(unknown)"] });
  }
  return out;
}

function label(node: ProfileNode): string {
  const f = node.callFrame;
  const file = f.url ? f.url.slice(f.url.lastIndexOf("/") + 1) : "";
  return `${f.functionName || "(anonymous)"}${file ? ` ${file}:${(f.lineNumber ?? 0) + 1}:${(f.columnNumber ?? 0) + 1}` : ""}`;
}

function sampleTimes(samples: readonly Sample[], keys: (s: Sample) => string[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const s of samples) for (const k of keys(s)) out.set(k, (out.get(k) ?? 0) + s.weight);
  return out;
}

function top<K extends string, V extends string>(
  times: Map<string, number>,
  key: K,
  value: V,
  n: number,
): Array<Record<K, string> & Record<V, number>> {
  return [...times]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, us]) => ({ [key]: k, [value]: round(us / 1000) }) as Record<K, string> & Record<V, number>);
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}
