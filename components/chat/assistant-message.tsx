"use client";

import { memo, useMemo } from "react";
import type { Segment } from "@/lib/markup/types";
import { Markdown } from "@/components/markdown/markdown";
import { formatCost, formatDuration, formatTokens, totalTokens } from "@/components/subagents/format";
import { TurnIdProvider } from "@/components/subagents/panel-actions";
import { ToolCallView } from "@/components/subagents/tool-call-view";
import { CopyButton } from "@/components/ui/copy-button";
import { AlertIcon } from "@/components/ui/icons";
import type { TurnView } from "./turn-view";

export interface AssistantMessageProps {
  turn: TurnView;
}

/**
 * The agent's answer, rendered from its MessageDoc: master text as markdown, master tool
 * calls as chips, subagent calls as panels, all in the order they happened. Memoized on
 * the turn object, which the reducer replaces only when one of its events arrives.
 */
export const AssistantMessage = memo(function AssistantMessage({ turn }: AssistantMessageProps) {
  const live = turn.status === "running" || turn.status === "sending";
  const segments = turn.doc.segments;
  const fullText = useMemo(() => textOf(segments), [segments]);
  const last = segments[segments.length - 1];
  const waiting = live && (!last || last.kind === "tool");

  return (
    <TurnIdProvider turnId={turn.turnId}>
      <article
        data-testid="message-assistant"
        data-turn-id={turn.turnId}
        data-status={turn.status}
        aria-busy={live}
        className="group min-w-0 space-y-3"
      >
        {segments.map((segment, i) =>
          segment.kind === "text" ? (
            <Markdown key={`t${i}`} text={segment.text} streaming={live && i === segments.length - 1} className="text-[15px]" />
          ) : (
            <div key={segment.call.callId} className="min-w-0">
              <ToolCallView call={segment.call} ownerRunId={null} />
            </div>
          ),
        )}
        {waiting ? <Working label={segments.length === 0 ? "Thinking…" : "Working…"} /> : null}
        {turn.status === "failed" ? (
          <div
            role="alert"
            data-testid="turn-error"
            className="flex items-start gap-2 rounded-lg border border-red-200 bg-red-50 px-3 py-2.5 text-sm text-red-800 dark:border-red-900/70 dark:bg-red-950/40 dark:text-red-300"
          >
            <AlertIcon className="mt-0.5 shrink-0" />
            <div className="min-w-0">
              <p className="font-medium">This turn failed.</p>
              {turn.error ? <p className="mt-0.5 break-words whitespace-pre-wrap">{turn.error}</p> : null}
            </div>
          </div>
        ) : null}
        {turn.status === "cancelled" ? (
          <p className="text-sm text-zinc-500 italic dark:text-zinc-400">Stopped{turn.error ? ` — ${turn.error}` : "."}</p>
        ) : null}
        {!live ? <MessageFooter text={fullText} turn={turn} /> : null}
      </article>
    </TurnIdProvider>
  );
});

function Working({ label }: { label: string }) {
  return (
    <div className="flex items-center gap-2 text-sm text-zinc-500 dark:text-zinc-400" role="status">
      <span className="flex gap-1" aria-hidden="true">
        <span className="size-1.5 animate-pulse rounded-full bg-current" />
        <span className="size-1.5 animate-pulse rounded-full bg-current [animation-delay:150ms]" />
        <span className="size-1.5 animate-pulse rounded-full bg-current [animation-delay:300ms]" />
      </span>
      {label}
    </div>
  );
}

function MessageFooter({ text, turn }: { text: string; turn: TurnView }) {
  const stats = turn.stats;
  return (
    <div className="flex flex-wrap items-center gap-x-3 gap-y-1 text-xs text-zinc-400 dark:text-zinc-500">
      {text ? <CopyButton text={text} label="Copy answer" className="-ml-1.5" /> : null}
      {stats && (totalTokens(stats) > 0 || stats.runtimeMs > 0) ? (
        <span className="tabular-nums" title={`${totalTokens(stats).toLocaleString()} tokens · ${stats.steps} steps`}>
          {formatTokens(totalTokens(stats))} tokens · {formatDuration(stats.runtimeMs)}
          {stats.cost > 0 ? ` · ${formatCost(stats.cost)}` : ""}
        </span>
      ) : null}
    </div>
  );
}

/** The master's own words, without tool output: what "Copy answer" copies. */
function textOf(segments: readonly Segment[]): string {
  let out = "";
  for (const s of segments) if (s.kind === "text") out += s.text;
  return out.trim();
}
