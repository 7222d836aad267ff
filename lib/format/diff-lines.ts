// How the approval card lays out a unified diff: pure functions over its text, so the
// component only renders (and the card and its test agree on what is shown).
import { withUnseenVisible } from "@/lib/tools/suspicious-name";

/** How each line of a unified diff is shown: added, removed, hunk header, file header or context. */
export type DiffLineKind = "add" | "del" | "hunk" | "file" | "context";

export interface DiffLine {
  kind: DiffLineKind;
  /** The line as a person reads it: invisible and direction-changing characters written out. */
  text: string;
}

export interface DiffSummary {
  lines: DiffLine[];
  added: number;
  removed: number;
}

function kindOf(line: string, index: number): DiffLineKind {
  // Only the first two lines are file headers: "--- x" later is a removed line "-- x".
  if (index < 2 && (line.startsWith("+++ ") || line.startsWith("--- "))) return "file";
  if (line.startsWith("@@")) return "hunk";
  if (line.startsWith("+")) return "add";
  if (line.startsWith("-")) return "del";
  return "context";
}

/** Every line of the diff, classified, with counts of added and removed lines. */
export function diffLines(diff: string): DiffSummary {
  const raw = diff.replace(/\n$/, "").split("\n");
  let added = 0;
  let removed = 0;
  const lines = raw.map((line, i): DiffLine => {
    const kind = kindOf(line, i);
    if (kind === "add") added++;
    if (kind === "del") removed++;
    return { kind, text: withUnseenVisible(line) };
  });
  return { lines, added, removed };
}

/** Above this many lines the diff view draws only the lines in view (and a margin). */
export const WINDOW_ABOVE_LINES = 5_000;

/**
 * The slice of rows to draw in a scrolled box of fixed-height rows: the rows in view plus
 * `overscan` on each side, clamped to [0, total].
 */
export function visibleRows(
  total: number,
  scrollTop: number,
  viewportPx: number,
  rowPx: number,
  overscan = 50,
): { start: number; end: number } {
  const first = Math.floor(Math.max(0, scrollTop) / rowPx);
  const count = Math.ceil(Math.max(0, viewportPx) / rowPx);
  const start = Math.max(0, Math.min(total, first - overscan));
  const end = Math.max(start, Math.min(total, first + count + overscan));
  return { start, end };
}
