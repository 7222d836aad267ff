"use client";

import { memo, useMemo, useState, type UIEvent } from "react";
import { diffLines, visibleRows, WINDOW_ABOVE_LINES, type DiffLine, type DiffLineKind } from "@/lib/format/diff-lines";

const CLASSES: Record<DiffLineKind, string> = {
  add: "bg-emerald-50 text-emerald-900 dark:bg-emerald-950/50 dark:text-emerald-200",
  del: "bg-red-50 text-red-900 dark:bg-red-950/50 dark:text-red-200",
  hunk: "text-sky-700 dark:text-sky-300",
  file: "font-semibold text-zinc-700 dark:text-zinc-300",
  context: "text-zinc-700 dark:text-zinc-300",
};

/** Row height of a windowed diff, in px: rows are positioned by it, so it is fixed. */
const ROW_PX = 20;
/** The box's height (max-h-80) before the page has measured it. */
const VIEWPORT_PX = 320;

function Row({ line }: { line: DiffLine }) {
  return (
    <div data-diff={line.kind} className={`px-2 whitespace-pre ${CLASSES[line.kind]}`} style={{ minHeight: ROW_PX }}>
      {line.text === "" ? " " : line.text}
    </div>
  );
}

/**
 * A unified diff as text (never markup), coloured by line, every line of it, scrollable in
 * both directions. Past `WINDOW_ABOVE_LINES` only the rows in view are drawn, inside a box
 * as tall as all of them, so scrolling reaches every line.
 */
export const DiffView = memo(function DiffView({ diff }: { diff: string }) {
  const { lines, added, removed } = useMemo(() => diffLines(diff), [diff]);
  const windowed = lines.length > WINDOW_ABOVE_LINES;
  const [view, setView] = useState({ scrollTop: 0, height: VIEWPORT_PX });
  const onScroll = windowed
    ? (e: UIEvent<HTMLPreElement>) => setView({ scrollTop: e.currentTarget.scrollTop, height: e.currentTarget.clientHeight })
    : undefined;
  const { start, end } = windowed ? visibleRows(lines.length, view.scrollTop, view.height, ROW_PX) : { start: 0, end: lines.length };
  return (
    <div>
      <p data-testid="approval-diff-stats" className="mb-0.5 text-xs text-zinc-600 dark:text-zinc-400">
        {added} {added === 1 ? "line" : "lines"} added, {removed} removed · {lines.length} lines of diff
        {windowed ? " (scroll to read them all)" : ""}
      </p>
      <pre
        data-testid="approval-diff"
        data-lines={lines.length}
        tabIndex={0}
        aria-label="Proposed change (unified diff)"
        onScroll={onScroll}
        className="max-h-80 overflow-auto rounded-md border border-zinc-200 bg-white py-1 font-mono text-xs leading-[20px] dark:border-zinc-800 dark:bg-zinc-950"
      >
        {windowed ? (
          <div style={{ height: lines.length * ROW_PX, position: "relative", minWidth: "max-content" }}>
            <div style={{ position: "absolute", top: start * ROW_PX, left: 0, minWidth: "100%" }}>
              {lines.slice(start, end).map((line, i) => (
                <Row key={start + i} line={line} />
              ))}
            </div>
          </div>
        ) : (
          lines.map((line, i) => <Row key={i} line={line} />)
        )}
      </pre>
    </div>
  );
});
