"use client";

import { memo, useMemo } from "react";

/** How each line of a unified diff is shown: added, removed, hunk header, file header or context. */
type Kind = "add" | "del" | "hunk" | "file" | "context";

const CLASSES: Record<Kind, string> = {
  add: "bg-emerald-50 text-emerald-900 dark:bg-emerald-950/50 dark:text-emerald-200",
  del: "bg-red-50 text-red-900 dark:bg-red-950/50 dark:text-red-200",
  hunk: "text-sky-700 dark:text-sky-300",
  file: "font-semibold text-zinc-700 dark:text-zinc-300",
  context: "text-zinc-700 dark:text-zinc-300",
};

function kindOf(line: string): Kind {
  if (line.startsWith("+++") || line.startsWith("---")) return "file";
  if (line.startsWith("@@")) return "hunk";
  if (line.startsWith("+")) return "add";
  if (line.startsWith("-")) return "del";
  return "context";
}

/** A unified diff as text (never markup), coloured by line, scrollable in both directions. */
export const DiffView = memo(function DiffView({ diff }: { diff: string }) {
  const lines = useMemo(() => diff.replace(/\n$/, "").split("\n"), [diff]);
  return (
    <pre
      data-testid="approval-diff"
      tabIndex={0}
      aria-label="Proposed change (unified diff)"
      className="max-h-80 overflow-auto rounded-md border border-zinc-200 bg-white py-1 font-mono text-xs leading-relaxed dark:border-zinc-800 dark:bg-zinc-950"
    >
      {lines.map((line, i) => (
        <div key={i} data-diff={kindOf(line)} className={`px-2 whitespace-pre ${CLASSES[kindOf(line)]}`}>
          {line === "" ? " " : line}
        </div>
      ))}
    </pre>
  );
});
