"use client";

import { createContext, useContext, useMemo, useRef, type ReactNode } from "react";
import type { ChatTurn, SubagentProcess } from "@/lib/contracts";
import { retriedAs } from "@/lib/turn/retries";

/**
 * Which run retried which, across the open session's turns (old run id → new run id,
 * derived by `retriedAs` in lib/turn/retries.ts). A context, so memoized panels need no
 * new props: only the small lineage line below re-renders when a retry appears.
 */
const RetryLinksContext = createContext<ReadonlyMap<string, string>>(new Map());

export function RetryLinksProvider({ value, children }: { value: ReadonlyMap<string, string>; children: ReactNode }) {
  return <RetryLinksContext.Provider value={value}>{children}</RetryLinksContext.Provider>;
}

/**
 * The links of these turns, as the same Map object while they stay the same: the turns
 * change on every streamed token, and a new context value would re-render every panel's
 * lineage line each time.
 */
export function useRetryLinks(turns: readonly ChatTurn[]): ReadonlyMap<string, string> {
  const last = useRef<ReadonlyMap<string, string>>(new Map());
  return useMemo(() => {
    const next = retriedAs(turns);
    const same = next.size === last.current.size && [...next].every(([from, to]) => last.current.get(from) === to);
    if (!same) last.current = next;
    return last.current;
  }, [turns]);
}

export function useRetriedAs(runId: string): string | undefined {
  return useContext(RetryLinksContext).get(runId);
}

/** A short, readable name for a run, as the result labels write it. */
export function runTag(runId: string): string {
  return runId.replace(/[^a-zA-Z0-9]/g, "").slice(0, 8);
}

/** The element id of a run's panel: the target of "retry of" and "retried as" links. */
export function panelAnchor(runId: string): string {
  return `run-${runId}`;
}

/** The run a URL's hash points at (`#run-…`), or null. */
export function runOfHash(hash: string): string | null {
  const prefix = `#${panelAnchor("")}`;
  return hash.startsWith(prefix) && hash.length > prefix.length ? decodeURIComponent(hash.slice(prefix.length)) : null;
}

/** "Retry of …" on a retry, "Retried as …" on the run it replaced; nothing on other runs. */
export function RetryLineage({ panel }: { panel: SubagentProcess }) {
  const newer = useRetriedAs(panel.runId);
  if (!panel.retryOf && !newer) return null;
  return (
    <div className="flex flex-wrap gap-x-3 gap-y-0.5 px-3 pb-1.5 text-xs text-zinc-500 dark:text-zinc-400">
      {panel.retryOf ? (
        <span data-testid="retry-of">
          Retry of <RunLink runId={panel.retryOf} />
        </span>
      ) : null}
      {newer ? (
        <span data-testid="retried-as">
          Retried as <RunLink runId={newer} />
        </span>
      ) : null}
    </div>
  );
}

/**
 * Brings a run's panel into the page when it is not there: its turn may be in an older
 * page not loaded yet, or held back above what is rendered. The message list provides it.
 */
const RunFinderContext = createContext<((runId: string) => void) | null>(null);
export const RunFinderProvider = RunFinderContext.Provider;

/** Scrolls to a run's panel and focuses its header; false when the panel is not in the page. */
export function showPanel(runId: string): boolean {
  const target = document.getElementById(panelAnchor(runId));
  if (!target) return false;
  target.scrollIntoView({ block: "center", behavior: "smooth" });
  target.querySelector<HTMLElement>("[data-testid=subagent-toggle]")?.focus({ preventScroll: true });
  return true;
}

function RunLink({ runId }: { runId: string }) {
  const find = useContext(RunFinderContext);
  const jump = (e: React.MouseEvent<HTMLAnchorElement>) => {
    if (showPanel(runId)) e.preventDefault();
    else if (find) {
      e.preventDefault();
      find(runId);
    }
  };
  return (
    <a
      href={`#${panelAnchor(runId)}`}
      onClick={jump}
      data-run-link={runId}
      className="font-mono text-sky-700 underline decoration-sky-300 underline-offset-2 hover:text-sky-900 focus-visible:outline-2 focus-visible:outline-sky-500 dark:text-sky-400 dark:decoration-sky-700 dark:hover:text-sky-300"
    >
      run {runTag(runId)}
    </a>
  );
}
