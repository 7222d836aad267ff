"use client";

import { useEffect, useMemo, useRef, useState } from "react";
import type { SubagentProcess, ToolCall } from "@/lib/contracts";
import { readNarrative } from "@/lib/agent/narrative";
import { Markdown } from "@/components/markdown/markdown";
import { fetchFullResponse } from "./full-response";
import { usePanelActions, useTurnId } from "./panel-actions";
import { returnedView } from "./returned-view";

/**
 * What the parent's model read of this run, rendered: its cast header and footer as one
 * quiet metadata line, and its body as markdown only when it differs from what the panel
 * shows above (condensed, or not the answer); otherwise a short note.
 */
export function ReturnedToParent({ call, panel }: { call: ToolCall; panel: SubagentProcess }) {
  const view = useMemo(() => returnedView(call, panel), [call, panel]);
  return (
    <div className="min-w-0" data-testid="returned-to-parent" data-returned={view.kind}>
      <div className="mb-1 text-[11px] font-semibold tracking-wide text-zinc-500 uppercase dark:text-zinc-400">Returned to parent</div>
      {view.kind !== "raw" ? (
        <p
          className="mb-1 flex flex-wrap gap-x-2 gap-y-0.5 text-xs text-zinc-500 tabular-nums dark:text-zinc-400"
          data-testid="returned-meta"
        >
          {view.meta.map((item, i) => (
            <span key={i} className="after:ml-2 after:content-['·'] last:after:content-none">
              {item}
            </span>
          ))}
        </p>
      ) : null}
      {view.kind === "same" ? (
        <p className="text-xs text-zinc-600 italic dark:text-zinc-400">{view.note}</p>
      ) : (
        <ReturnedBody callId={call.callId} ownerRunId={panel.parentRunId} body={view.body} truncated={view.truncated} />
      )}
    </div>
  );
}

function ReturnedBody({
  callId,
  ownerRunId,
  body,
  truncated,
}: {
  callId: string;
  ownerRunId: string | null;
  body: string;
  truncated: boolean;
}) {
  const actions = usePanelActions();
  const turnId = useTurnId();
  const [full, setFull] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const abort = useRef<AbortController | null>(null);
  useEffect(() => () => abort.current?.abort(), []);
  const showAll = async () => {
    if (!actions) return;
    abort.current?.abort();
    abort.current = new AbortController();
    try {
      const text = await fetchFullResponse(
        { sessionId: actions.sessionId, callId, turnId, runId: ownerRunId, apiBase: actions.apiBase },
        abort.current.signal,
      );
      setFull(readNarrative(text)?.body ?? text);
    } catch (err) {
      if ((err as Error).name !== "AbortError") setError((err as Error).message || "Could not load the full result.");
    }
  };
  return (
    <div>
      <div className="max-h-96 overflow-auto rounded-md border border-zinc-200 bg-zinc-50/60 px-3 py-2 text-sm dark:border-zinc-800 dark:bg-zinc-950/40">
        {(full ?? body).trim() ? <Markdown text={full ?? body} /> : <span className="text-zinc-500 italic">(empty)</span>}
      </div>
      {truncated && full === null && actions ? (
        <button
          type="button"
          onClick={showAll}
          className="mt-1 rounded px-1.5 py-0.5 text-xs font-medium text-sky-700 hover:bg-sky-50 dark:text-sky-400 dark:hover:bg-sky-950"
        >
          Show all
        </button>
      ) : null}
      {error ? <p className="mt-1 text-xs text-red-700 dark:text-red-400">{error}</p> : null}
    </div>
  );
}
