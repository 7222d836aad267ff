"use client";

import { memo, useCallback, useEffect, useId, useMemo, useRef, useState, type KeyboardEvent } from "react";
import { useVirtualizer } from "@tanstack/react-virtual";
import type { ChatTurn } from "@/lib/contracts";
import { formatDuration, formatTokens } from "@/lib/format/display";
import { axisSpan, barSpan, timelineLayout, type TimelineRow, type TimelineStatus } from "@/lib/timeline/timeline";
import { useDisclosure } from "@/components/ui/disclosure";
import { revealRow } from "./reveal";

/**
 * The trace timeline of one turn: a waterfall of the master's steps, every subagent run
 * and every tool call on one time axis. Opened from the turn ("Timeline"), live while the
 * turn runs, the same after a reload (the times are stored). Only the rows in view are
 * rendered (@tanstack/react-virtual over the timeline's own scroller, rows of one fixed
 * height), so a turn of 5,000 calls costs what twenty rows cost; the layout is a memoised
 * pure function of the turn (lib/timeline/timeline.ts) that reuses the rows of untouched runs.
 */

const ROW_HEIGHT = 28;
const AXIS_HEIGHT = 22;
const VIEW_HEIGHT = 360;
/** Rows rendered beyond the visible ones, so a fast scroll shows no blank. */
const OVERSCAN = 8;
/** How often open bars grow while the turn runs: smooth enough, and cheap (only visible rows redraw). */
const TICK_MS = 500;

const timelineKey = (turnId: string) => `timeline:${turnId}`;

/** "Timeline" in the turn's stats row: shows or hides the turn's timeline. */
export function TimelineToggle({ turnId }: { turnId: string }) {
  const [open, setOpen] = useDisclosure(timelineKey(turnId));
  return (
    <button
      type="button"
      data-testid="timeline-toggle"
      aria-expanded={open}
      onClick={() => setOpen(!open)}
      className="rounded px-1.5 py-0.5 text-xs text-sky-700 underline-offset-2 hover:underline focus-visible:outline-2 focus-visible:outline-sky-500 dark:text-sky-400"
    >
      {open ? "Hide timeline" : "Timeline"}
    </button>
  );
}

/** The timeline of `turn` when its toggle is open; nothing otherwise. */
export const TurnTimeline = memo(function TurnTimeline({ turn }: { turn: ChatTurn }) {
  const [open] = useDisclosure(timelineKey(turn.turnId));
  return open ? <TimelineView turn={turn} /> : null;
});

function useNow(ticking: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!ticking) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), TICK_MS);
    return () => clearInterval(timer);
  }, [ticking]);
  return now;
}

function TimelineView({ turn }: { turn: ChatTurn }) {
  const layout = useMemo(() => timelineLayout(turn), [turn]);
  const now = useNow(layout.open);
  const span = axisSpan(layout, now);
  const { rows } = layout;
  const scroller = useRef<HTMLDivElement>(null);
  const [focusIndex, setFocusIndex] = useState(0);
  const wantFocus = useRef(false);
  const titleId = useId();
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    getItemKey: (i) => rows[i]!.key,
    overscan: OVERSCAN,
    // The rows start under the sticky axis, which also covers the top of the view.
    paddingStart: AXIS_HEIGHT,
    scrollPaddingStart: AXIS_HEIGHT,
    initialRect: { width: 640, height: VIEW_HEIGHT + AXIS_HEIGHT },
  });
  const visible = virtualizer.getVirtualItems();
  const first = visible[0]?.index ?? 0;
  const focus = Math.min(focusIndex, Math.max(0, rows.length - 1));

  useEffect(() => {
    if (!wantFocus.current) return;
    const row = scroller.current?.querySelector<HTMLElement>(`[data-row-index="${focus}"]`);
    if (!row) return;
    wantFocus.current = false;
    row.focus({ preventScroll: true });
  }, [focus, first]);

  const moveTo = (index: number) => {
    const next = Math.max(0, Math.min(rows.length - 1, index));
    virtualizer.scrollToIndex(next, { align: "auto" });
    wantFocus.current = true;
    setFocusIndex(next);
  };

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const page = Math.floor(VIEW_HEIGHT / ROW_HEIGHT) - 1;
    const moves: Record<string, number> = {
      ArrowDown: focus + 1,
      ArrowUp: focus - 1,
      Home: 0,
      End: rows.length - 1,
      PageDown: focus + page,
      PageUp: focus - page,
    };
    const target = moves[e.key];
    if (target === undefined) return;
    e.preventDefault();
    moveTo(target);
  };

  const { turnId } = turn;
  const open = useCallback(
    (row: TimelineRow, index: number) => {
      setFocusIndex(index);
      revealRow(row, turnId);
    },
    [turnId],
  );

  const runs = useMemo(() => rows.filter((r) => r.kind === "run").length, [rows]);
  const calls = useMemo(() => rows.filter((r) => r.kind === "call").length, [rows]);

  return (
    <section
      data-testid="turn-timeline"
      data-open={layout.open || undefined}
      data-rows={rows.length}
      aria-labelledby={titleId}
      className="min-w-0 rounded-lg border border-zinc-200 bg-white text-xs shadow-xs dark:border-zinc-800 dark:bg-zinc-900/60"
    >
      <header className="flex flex-wrap items-baseline gap-x-3 gap-y-0.5 border-b border-zinc-200 px-3 py-1.5 text-zinc-500 dark:border-zinc-800 dark:text-zinc-400">
        <h3 id={titleId} className="font-medium text-zinc-800 dark:text-zinc-100">
          Timeline
        </h3>
        <span className="tabular-nums" data-testid="timeline-summary">
          {formatDuration(span)} · {rows.length - runs - calls} step{rows.length - runs - calls === 1 ? "" : "s"} · {runs} subagent
          {runs === 1 ? "" : "s"} · {calls} tool call{calls === 1 ? "" : "s"}
        </span>
        {layout.untimed > 0 ? (
          <span data-testid="timeline-untimed" className="text-amber-800 dark:text-amber-300">
            Times unknown for {layout.untimed} row{layout.untimed === 1 ? "" : "s"} (recorded before times were kept)
          </span>
        ) : null}
      </header>
      {rows.length === 0 ? (
        <p className="px-3 py-2 text-zinc-500 italic dark:text-zinc-400">Nothing has happened yet.</p>
      ) : (
        <div
          ref={scroller}
          data-testid="timeline-scroller"
          onKeyDown={onKeyDown}
          style={{ maxHeight: VIEW_HEIGHT + AXIS_HEIGHT }}
          className="overflow-auto overscroll-contain"
        >
          <div className="relative min-w-[640px]" style={{ height: virtualizer.getTotalSize() }}>
            <Axis span={span} />
            <ul aria-label="Steps, subagents and tool calls">
              {visible.map(({ index, key, start }) => {
                const row = rows[index]!;
                return (
                  <Row
                    key={key}
                    row={row}
                    index={index}
                    top={start}
                    origin={layout.origin}
                    now={row.open ? now : 0}
                    span={span}
                    focused={index === focus}
                    onOpen={open}
                  />
                );
              })}
            </ul>
          </div>
        </div>
      )}
    </section>
  );
}

/** Tick labels along the top; sticky, so they stay in view while the rows scroll. */
function Axis({ span }: { span: number }) {
  const ticks = [0, 0.25, 0.5, 0.75, 1];
  return (
    <div
      className="sticky top-0 z-10 flex border-b border-zinc-200 bg-white/95 text-[10px] text-zinc-500 tabular-nums dark:border-zinc-800 dark:bg-zinc-900/95 dark:text-zinc-400"
      style={{ height: AXIS_HEIGHT }}
    >
      <div className="w-44 shrink-0 sm:w-60" />
      <div className="relative mx-2 flex-1">
        {ticks.map((t) => (
          <span
            key={t}
            className="absolute top-1 whitespace-nowrap"
            style={{ left: `${t * 100}%`, transform: t === 0 ? undefined : t === 1 ? "translateX(-100%)" : "translateX(-50%)" }}
          >
            {formatDuration(span * t)}
          </span>
        ))}
      </div>
      <div className="w-24 shrink-0" />
    </div>
  );
}

const STATUS_WORDS: Record<TimelineStatus, string> = {
  running: "running",
  waiting: "waiting for approval",
  done: "done",
  failed: "failed",
  stopped: "stopped",
  timed_out: "timed out",
  out_of_budget: "out of budget",
};

const BARS: Record<TimelineStatus, string> = {
  running: "bg-sky-500 dark:bg-sky-400",
  waiting: "bg-amber-500 dark:bg-amber-400",
  done: "",
  failed: "bg-red-500 dark:bg-red-400",
  stopped: "border border-dashed border-zinc-500 bg-zinc-200 dark:border-zinc-400 dark:bg-zinc-700",
  timed_out: "bg-orange-400 dark:bg-orange-500",
  out_of_budget: "bg-amber-400 dark:bg-amber-500",
};

const DONE_BARS: Record<TimelineRow["kind"], string> = {
  step: "bg-indigo-300 dark:bg-indigo-500/80",
  run: "bg-emerald-500 dark:bg-emerald-400",
  call: "bg-zinc-400 dark:bg-zinc-500",
};

const Row = memo(function Row({
  row,
  index,
  top,
  origin,
  now,
  span,
  focused,
  onOpen,
}: {
  row: TimelineRow;
  index: number;
  top: number;
  origin: number;
  now: number;
  span: number;
  focused: boolean;
  onOpen: (row: TimelineRow, index: number) => void;
}) {
  const bar = barSpan(row, origin, now);
  const duration = bar ? formatDuration(bar.to - bar.from) : "time unknown";
  const tone = row.status === "done" ? DONE_BARS[row.kind] : BARS[row.status];
  const what = row.kind === "step" ? row.label : row.kind === "run" ? `Subagent ${row.label}` : `Tool call ${row.label}`;
  return (
    <li className="absolute inset-x-0" style={{ top, height: ROW_HEIGHT }}>
      <button
        type="button"
        data-testid="timeline-row"
        data-row-index={index}
        data-kind={row.kind}
        data-status={row.status}
        data-run-id={row.runId ?? undefined}
        data-call-id={row.callId ?? undefined}
        data-depth={row.depth}
        tabIndex={focused ? 0 : -1}
        onClick={() => onOpen(row, index)}
        title={row.detail ? `${row.label}: ${row.detail}` : row.label}
        aria-label={`${what}: ${STATUS_WORDS[row.status]}, ${duration}${row.tokens > 0 ? `, ${row.tokens.toLocaleString()} tokens` : ""}. Show it.`}
        className="group flex h-full w-full items-center text-left hover:bg-zinc-50 focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-sky-500 dark:hover:bg-zinc-800/60"
      >
        <span
          className="sticky left-0 z-[1] flex h-full w-44 shrink-0 items-center gap-1.5 truncate bg-white pr-2 group-hover:bg-zinc-50 sm:w-60 dark:bg-zinc-900 dark:group-hover:bg-zinc-800"
          style={{ paddingLeft: 8 + row.depth * 12 }}
        >
          <span className={`size-2 shrink-0 rounded-full ${tone}`} aria-hidden="true" />
          <span className={`shrink-0 ${row.kind === "call" ? "font-mono" : "font-medium"} text-zinc-800 dark:text-zinc-100`}>
            {row.label}
          </span>
          <span className="min-w-0 truncate text-zinc-500 dark:text-zinc-400">{row.detail}</span>
        </span>
        <span className="relative mx-2 h-full flex-1">
          {bar ? (
            <span
              data-testid="timeline-bar"
              className={`absolute top-1/2 h-3 -translate-y-1/2 rounded-sm ${tone}`}
              style={{ left: `${(bar.from / span) * 100}%`, width: `max(3px, ${((bar.to - bar.from) / span) * 100}%)` }}
            />
          ) : (
            <span className="absolute inset-y-0 left-0 flex items-center text-[10px] text-zinc-500 italic dark:text-zinc-400">
              time unknown
            </span>
          )}
        </span>
        <span className="w-24 shrink-0 pr-2 text-right text-[11px] text-zinc-500 tabular-nums dark:text-zinc-400">
          {bar ? duration : ""}
          {row.tokens > 0 ? ` · ${formatTokens(row.tokens)}` : ""}
        </span>
      </button>
    </li>
  );
});
