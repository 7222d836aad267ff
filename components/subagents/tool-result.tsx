"use client";

import { useEffect, useRef, useState } from "react";
import { usePanelActions, useTurnId } from "./panel-actions";
import { fetchFullResponse } from "./full-response";

export interface ToolResultProps {
  callId: string;
  /** The run that made the call; null for the master agent. */
  ownerRunId: string | null;
  response: string;
  responseSize: number;
}

/** A tool's result as text; when only a preview arrived, "Show all" fetches the rest on demand. */
export function ToolResult({ callId, ownerRunId, response, responseSize }: ToolResultProps) {
  const actions = usePanelActions();
  const turnId = useTurnId();
  const [full, setFull] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const abort = useRef<AbortController | null>(null);
  useEffect(() => () => abort.current?.abort(), []);

  const truncated = full === null && responseSize > response.length;
  const text = full ?? response;

  const showAll = async () => {
    if (!actions) return;
    abort.current?.abort();
    abort.current = new AbortController();
    setLoading(true);
    setError(null);
    try {
      const ref = { sessionId: actions.sessionId, callId, turnId, runId: ownerRunId, apiBase: actions.apiBase };
      setFull(await fetchFullResponse(ref, abort.current.signal));
    } catch (err) {
      if ((err as Error).name !== "AbortError") setError((err as Error).message || "Could not load the full result.");
    } finally {
      setLoading(false);
    }
  };

  return (
    <div>
      <pre className="max-h-72 overflow-auto rounded-md border border-zinc-200 bg-white p-2 font-mono text-xs leading-relaxed break-words whitespace-pre-wrap text-zinc-800 dark:border-zinc-800 dark:bg-zinc-950 dark:text-zinc-200">
        {text || <span className="text-zinc-500 italic dark:text-zinc-400">(empty)</span>}
      </pre>
      {truncated ? (
        <div className="mt-1 flex flex-wrap items-center gap-2 text-xs text-zinc-500 dark:text-zinc-400">
          <span>
            Showing {response.length.toLocaleString()} of {responseSize.toLocaleString()} characters.
          </span>
          {actions ? (
            <button
              type="button"
              onClick={showAll}
              disabled={loading}
              className="rounded px-1.5 py-0.5 font-medium text-sky-700 hover:bg-sky-50 disabled:opacity-60 dark:text-sky-400 dark:hover:bg-sky-950"
            >
              {loading ? "Loading…" : "Show all"}
            </button>
          ) : null}
          {error ? <span className="text-red-600 dark:text-red-400">{error}</span> : null}
        </div>
      ) : null}
    </div>
  );
}
