import type { ChatTurn, Step, SubagentProcess, ToolCall } from "@/lib/contracts";
import { waitsForApproval } from "@/lib/turn/approvals";
import { runOutcome } from "@/lib/subagents/run-summary";

/**
 * The trace timeline of a turn as rows on one time axis: each master step, then the calls
 * it made; a call that spawned a subagent is that subagent's row (the panel is the call),
 * followed by its own calls, indented one level deeper, to any depth.
 *
 * Times are absolute (epoch ms), so a row does not change when the clock moves: a bar
 * still open (`end: null`, `open`) ends at "now", which the view supplies when it draws.
 * Rows are cached per object (step, process, call) in WeakMaps: the turn reducer copies
 * only the objects on the path to a change, so a streamed token rebuilds the rows of the
 * one run it touched (and the arrays that hold them), never the 5,000 calls beside it.
 */

export type TimelineStatus = "running" | "waiting" | "done" | "failed" | "stopped" | "timed_out" | "out_of_budget";
export type TimelineKind = "step" | "run" | "call";

export interface TimelineRow {
  /** Unique within the turn. */
  key: string;
  kind: TimelineKind;
  /** Indentation: master steps 0, their calls and runs 1, a run's calls 2, … */
  depth: number;
  label: string;
  /** Secondary words: a run's task, a call's arguments. */
  detail: string;
  /** Epoch ms; null when unknown (records from before times were kept). */
  start: number | null;
  /** Epoch ms; null while open (ends at "now") or when unknown. */
  end: number | null;
  open: boolean;
  status: TimelineStatus;
  /** Tokens the run used (runs only; 0 otherwise). */
  tokens: number;
  /** The run this row is (a run row) or belongs to (a call row's owner); null for the master. */
  runId: string | null;
  callId: string | null;
  /** Run ids of the panels that hold this row, outermost first (to open them). */
  runPath: readonly string[];
}

export interface TimelineLayout {
  rows: readonly TimelineRow[];
  /** Epoch ms of the turn's start: offset 0 of the axis. */
  origin: number;
  /** The latest known end among the rows and the turn (epoch ms); open rows reach "now" beyond it. */
  lastEnd: number;
  /** Rows drawn without a bar because their times are unknown. */
  untimed: number;
  open: boolean;
}

interface Context {
  depth: number;
  runId: string | null;
  runPath: readonly string[];
  /** The owner's end, for calls it left closed without a result time (swept at its end). */
  ownerEnd: number | null;
  ownerOpen: boolean;
}

const callRows = new WeakMap<ToolCall, { ctx: Context; rows: readonly TimelineRow[] }>();
const stepRows = new WeakMap<Step, { ctx: Context; rows: readonly TimelineRow[] }>();

export function timelineLayout(turn: ChatTurn): TimelineLayout {
  const origin = parseTime(turn.createdAt) ?? 0;
  const open = turn.status === "running";
  const turnEnd = parseTime(turn.endedAt);
  const rows: TimelineRow[] = [];
  let previousEnd: number | null = origin;
  turn.steps.forEach((step, index) => {
    const last = index === turn.steps.length - 1;
    const own = stepTimes(step);
    // A step's times arrive when it ends; before that (or in an older record) it began when
    // the one before it ended, and it is still open while it is the turn's last.
    let start = own?.start ?? (last ? previousEnd : null);
    let end = own?.end ?? (last && !open ? turnEnd : null);
    const stepOpen = !own && last && open;
    if (start === null) end = null;
    if (end !== null && start !== null && end < start) start = end;
    previousEnd = own?.end ?? null;
    rows.push({
      key: `s${index}`,
      kind: "step",
      depth: 0,
      label: `Step ${index + 1}`,
      detail: stepDetail(step),
      start,
      end: stepOpen ? null : end,
      open: stepOpen,
      status: stepOpen ? "running" : turn.status === "failed" && last ? "failed" : turn.status === "cancelled" && last ? "stopped" : "done",
      tokens: 0,
      runId: null,
      callId: null,
      runPath: [],
    });
    const ctx: Context = { depth: 1, runId: null, runPath: [], ownerEnd: stepOpen ? null : (end ?? turnEnd), ownerOpen: open };
    for (const row of rowsOfStep(step, ctx)) rows.push(row);
  });
  let lastEnd = turnEnd ?? origin;
  let untimed = 0;
  for (const row of rows) {
    if (row.start === null) untimed++;
    if (row.end !== null && row.end > lastEnd) lastEnd = row.end;
    if (row.start !== null && row.start > lastEnd) lastEnd = row.start;
  }
  return { rows, origin, lastEnd, untimed, open };
}

/** The rows of one step's calls, the same array while the step (and where it sits) is the same. */
function rowsOfStep(step: Step, ctx: Context): readonly TimelineRow[] {
  const cached = stepRows.get(step);
  if (cached && sameContext(cached.ctx, ctx)) return cached.rows;
  const rows: TimelineRow[] = [];
  for (const call of step.toolCalls) for (const row of rowsOfCall(call, ctx)) rows.push(row);
  stepRows.set(step, { ctx, rows });
  return rows;
}

function rowsOfCall(call: ToolCall, ctx: Context): readonly TimelineRow[] {
  const cached = callRows.get(call);
  if (cached && sameContext(cached.ctx, ctx)) return cached.rows;
  const rows = call.subagent ? runRows(call.subagent, ctx) : [callRow(call, ctx)];
  callRows.set(call, { ctx, rows });
  return rows;
}

function runRows(process: SubagentProcess, ctx: Context): TimelineRow[] {
  const start = parseTime(process.startedAt);
  const running = process.status === "running";
  const end = running ? null : (parseTime(process.endedAt) ?? ctx.ownerEnd);
  const outcome = runOutcome(process);
  const rows: TimelineRow[] = [
    {
      key: `r${process.runId}`,
      kind: "run",
      depth: ctx.depth,
      label: process.name,
      detail: process.task,
      start,
      end: start === null ? null : end,
      open: running && start !== null,
      status: running
        ? waitsForApproval(process)
          ? "waiting"
          : "running"
        : outcome === "succeeded"
          ? "done"
          : outcome === "running"
            ? "running"
            : outcome,
      tokens:
        process.stats.chat.inputTokens +
        process.stats.chat.outputTokens +
        process.stats.system.inputTokens +
        process.stats.system.outputTokens,
      runId: process.runId,
      callId: null,
      runPath: ctx.runPath,
    },
  ];
  const inner: Context = {
    depth: ctx.depth + 1,
    runId: process.runId,
    runPath: [...ctx.runPath, process.runId],
    ownerEnd: end,
    ownerOpen: running,
  };
  for (const step of process.steps) for (const row of rowsOfStep(step, inner)) rows.push(row);
  return rows;
}

function callRow(call: ToolCall, ctx: Context): TimelineRow {
  const start = parseTime(call.startedAt);
  const running = call.status === "running" && ctx.ownerOpen;
  const end = running ? null : (parseTime(call.endedAt) ?? ctx.ownerEnd);
  const waiting = call.approval?.state === "pending";
  const status: TimelineStatus =
    call.status === "running"
      ? waiting
        ? "waiting"
        : "running"
      : call.status === "success"
        ? "done"
        : call.status === "cancelled"
          ? "stopped"
          : "failed";
  return {
    key: `c${ctx.runId ?? "m"}:${call.callId}`,
    kind: "call",
    depth: ctx.depth,
    label: call.name,
    detail: call.parameters.length > 200 ? call.parameters.slice(0, 200) : call.parameters,
    start,
    end: start === null ? null : end !== null && end < start ? start : end,
    open: running && start !== null,
    status,
    tokens: 0,
    runId: ctx.runId,
    callId: call.callId,
    runPath: ctx.runPath,
  };
}

function sameContext(a: Context, b: Context): boolean {
  return a.depth === b.depth && a.runId === b.runId && a.ownerEnd === b.ownerEnd && a.ownerOpen === b.ownerOpen;
}

function stepTimes(step: Step): { start: number; end: number } | null {
  const start = parseTime(step.startedAt);
  const end = parseTime(step.endedAt);
  return start === null || end === null ? null : { start, end };
}

function stepDetail(step: Step): string {
  const text = step.text.trim();
  if (text) return text.length > 120 ? `${text.slice(0, 120)}…` : text;
  const calls = step.toolCalls.length;
  return calls ? `${calls} call${calls === 1 ? "" : "s"}` : "";
}

function parseTime(value: string | undefined): number | null {
  if (value === undefined) return null;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? ms : null;
}

/** Where a row's bar sits on the axis, in ms from the origin, with open bars reaching `now`. */
export function barSpan(row: TimelineRow, origin: number, now: number): { from: number; to: number } | null {
  if (row.start === null) return null;
  const to = row.open ? Math.max(now, row.start) : (row.end ?? row.start);
  return { from: row.start - origin, to: to - origin };
}

/** The axis length in ms: the latest end, or "now" while the turn runs; never zero. */
export function axisSpan(layout: TimelineLayout, now: number): number {
  const end = layout.open ? Math.max(now, layout.lastEnd) : layout.lastEnd;
  return Math.max(1, end - layout.origin);
}
