"use client";

import { useEffect, useMemo, useRef, useState, type KeyboardEvent, type ReactNode } from "react";
import type { ModelCallRecord, ModelCallSummary } from "@/lib/contracts";
import { classifyMessages, MESSAGE_KIND_LABELS, tokensByKind, type MessageEntry } from "@/lib/context/message-kinds";
import { formatDuration, formatTokens, parseTime } from "@/lib/format/display";
import { XIcon } from "@/components/ui/icons";
import { fetchModelCall, fetchModelCalls } from "./model-calls-api";

export interface InspectorTarget {
  sessionId: string;
  turnId: string;
  /** null: the master agent. */
  runId: string | null;
  /** Who, for the title ("Master agent", "explore: find the date"). */
  who: string;
  /** A share link's read base instead of the owner's. */
  apiBase?: string;
}

/** Longest message text shown before "Show all" (the rest is one click away, never lost). */
const CLIP_CHARS = 2_000;

/**
 * What exactly the model saw, call by call, for one agent of a turn: each request's
 * messages with their role, kind and estimated size (subagent results, compaction
 * summaries, objective reinforcement and steering told apart), the tools offered, and
 * what came back with the provider's own usage and finish reason. A modal dialog:
 * Escape closes it (and is marked handled, so the chat's Escape does not stop the turn).
 */
export function ContextInspector({ target, onClose }: { target: InspectorTarget; onClose: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [calls, setCalls] = useState<ModelCallSummary[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [selected, setSelected] = useState<string | null>(null);

  useEffect(() => {
    dialog.current?.showModal();
  }, []);

  useEffect(() => {
    const abort = new AbortController();
    fetchModelCalls(target.sessionId, target.turnId, abort.signal, target.apiBase)
      .then((all) => {
        const mine = all.filter((c) => c.runId === target.runId);
        setCalls(mine);
        setSelected(mine.filter((c) => c.purpose === "chat").at(-1)?.callId ?? mine.at(-1)?.callId ?? null);
      })
      .catch((e: unknown) => {
        if (!abort.signal.aborted) setError(e instanceof Error ? e.message : String(e));
      });
    return () => abort.abort();
  }, [target.sessionId, target.turnId, target.runId, target.apiBase]);

  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key !== "Escape") return;
    e.preventDefault();
    onClose();
  };

  return (
    <dialog
      ref={dialog}
      onKeyDown={onKeyDown}
      onCancel={(e) => e.preventDefault()}
      aria-labelledby="inspector-title"
      data-testid="context-inspector"
      className="m-auto h-[min(90dvh,56rem)] w-[min(56rem,calc(100vw-1rem))] max-w-none overflow-hidden rounded-xl border border-zinc-200 bg-white p-0 text-zinc-900 shadow-2xl backdrop:bg-zinc-950/50 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100"
    >
      <div className="flex h-full flex-col">
        <div className="flex items-start gap-3 border-b border-zinc-200 px-4 py-3 dark:border-zinc-800">
          <div className="min-w-0 flex-1">
            <h2 id="inspector-title" className="text-sm font-semibold">
              Context inspector
            </h2>
            <p className="truncate text-xs text-zinc-600 dark:text-zinc-400">{target.who}: every model request, exactly as sent</p>
          </div>
          <button
            type="button"
            onClick={onClose}
            aria-label="Close the context inspector"
            className="rounded-md p-1.5 text-zinc-500 hover:bg-zinc-100 dark:hover:bg-zinc-800"
          >
            <XIcon />
          </button>
        </div>
        <div className="min-h-0 flex-1 overflow-y-auto px-4 py-3">
          {error ? (
            <p role="alert" className="text-sm text-red-700 dark:text-red-400">
              Could not load the model calls: {error}
            </p>
          ) : calls === null ? (
            <p className="text-sm text-zinc-600 dark:text-zinc-400">Loading…</p>
          ) : calls.length === 0 ? (
            <p className="text-sm text-zinc-600 dark:text-zinc-400">
              No model requests are recorded for this agent in this turn (turns from before recording began have none).
            </p>
          ) : (
            <>
              <CallList calls={calls} selected={selected} onSelect={setSelected} />
              {selected ? (
                <CallDetail
                  key={selected}
                  sessionId={target.sessionId}
                  callId={selected}
                  forSubagent={target.runId !== null}
                  apiBase={target.apiBase}
                />
              ) : null}
            </>
          )}
        </div>
      </div>
    </dialog>
  );
}

function CallList({ calls, selected, onSelect }: { calls: ModelCallSummary[]; selected: string | null; onSelect: (id: string) => void }) {
  return (
    <div role="radiogroup" aria-label="Model requests" className="mb-4 flex flex-wrap gap-1.5">
      {calls.map((call) => {
        const on = call.callId === selected;
        const label = call.purpose === "chat" ? `Step ${call.index + 1}` : `System ${call.index + 1}`;
        return (
          <button
            key={call.callId}
            type="button"
            role="radio"
            aria-checked={on}
            onClick={() => onSelect(call.callId)}
            data-testid="inspector-call"
            title={call.purpose === "system" ? "A request to the system model (compaction or condensing a result)" : undefined}
            className={`rounded-md border px-2.5 py-1 text-xs tabular-nums ${
              on
                ? "border-sky-500 bg-sky-50 text-sky-900 dark:border-sky-400 dark:bg-sky-950/50 dark:text-sky-100"
                : "border-zinc-300 text-zinc-700 hover:bg-zinc-100 dark:border-zinc-700 dark:text-zinc-300 dark:hover:bg-zinc-800"
            }`}
          >
            {label}
            {call.usage ? ` · ${formatTokens(call.usage.inputTokens)} in` : ""}
            {call.error ? " · stopped" : ""}
          </button>
        );
      })}
    </div>
  );
}

function CallDetail({
  sessionId,
  callId,
  forSubagent,
  apiBase,
}: {
  sessionId: string;
  callId: string;
  forSubagent: boolean;
  apiBase?: string;
}) {
  const [record, setRecord] = useState<ModelCallRecord | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const abort = new AbortController();
    fetchModelCall(sessionId, callId, abort.signal, apiBase)
      .then(setRecord)
      .catch((e: unknown) => {
        if (!abort.signal.aborted) setError(e instanceof Error ? e.message : String(e));
      });
    return () => abort.abort();
  }, [sessionId, callId, apiBase]);
  const entries = useMemo(() => (record ? classifyMessages(record.request.messages, forSubagent) : []), [record, forSubagent]);
  if (error)
    return (
      <p role="alert" className="text-sm text-red-700 dark:text-red-400">
        Could not load this request: {error}
      </p>
    );
  if (!record) return <p className="text-sm text-zinc-600 dark:text-zinc-400">Loading the request…</p>;
  const estimated = entries.reduce((n, e) => n + e.tokens, 0);
  const started = parseTime(record.startedAt);
  const ended = parseTime(record.endedAt);
  return (
    <div className="space-y-4" data-testid="inspector-detail">
      <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-xs">
        <Row label="Model">{record.modelLabel}</Row>
        <Row label="Sent">
          {record.request.messages.length} messages · ~{estimated.toLocaleString()} tokens estimated · {record.request.tools.length} tools
          offered
        </Row>
        <Row label="Usage (provider)">
          {record.usage
            ? `${record.usage.inputTokens.toLocaleString()} in · ${record.usage.outputTokens.toLocaleString()} out`
            : "not reported"}
        </Row>
        <Row label="Finished">{record.error ? `no: ${record.error}` : (record.finishReason ?? "—")}</Row>
        {started !== null && ended !== null ? <Row label="Took">{formatDuration(ended - started)}</Row> : null}
      </dl>
      <Breakdown entries={entries} total={estimated} />
      <section>
        <h3 className="mb-1.5 text-[11px] font-semibold tracking-wide text-zinc-600 uppercase dark:text-zinc-400">Messages</h3>
        <ol className="space-y-1.5">
          {entries.map((entry) => (
            <MessageItem key={entry.index} entry={entry} message={record.request.messages[entry.index]!} />
          ))}
        </ol>
      </section>
      {record.request.tools.length ? (
        <section>
          <h3 className="mb-1.5 text-[11px] font-semibold tracking-wide text-zinc-600 uppercase dark:text-zinc-400">Tools offered</h3>
          <p className="font-mono text-xs break-words text-zinc-700 dark:text-zinc-300">
            {record.request.tools.map((t) => t.name).join(", ")}
          </p>
        </section>
      ) : null}
      <section>
        <h3 className="mb-1.5 text-[11px] font-semibold tracking-wide text-zinc-600 uppercase dark:text-zinc-400">What came back</h3>
        {record.response.text ? <Clipped text={record.response.text} /> : null}
        {record.response.toolCalls.map((call) => (
          <p key={call.id} className="mt-1 font-mono text-xs break-words text-zinc-700 dark:text-zinc-300">
            → {call.name}({call.arguments})
          </p>
        ))}
        {record.response.toolCallsLeftOut ? (
          <p className="mt-1 text-xs text-zinc-600 dark:text-zinc-400">
            …and {record.response.toolCallsLeftOut.toLocaleString("en")} more tool calls, beyond what one reply may ask: refused, not kept.
          </p>
        ) : null}
        {!record.response.text && record.response.toolCalls.length === 0 ? (
          <p className="text-xs text-zinc-600 dark:text-zinc-400">Nothing.</p>
        ) : null}
      </section>
    </div>
  );
}

/** Where the context went: estimated tokens per kind of message, as bars. */
function Breakdown({ entries, total }: { entries: MessageEntry[]; total: number }) {
  const rows = tokensByKind(entries);
  return (
    <section aria-label="Where the context went">
      <h3 className="mb-1.5 text-[11px] font-semibold tracking-wide text-zinc-600 uppercase dark:text-zinc-400">Where the context went</h3>
      <ul className="space-y-1">
        {rows.map((row) => {
          const share = total > 0 ? row.tokens / total : 0;
          return (
            <li
              key={row.kind}
              className="grid grid-cols-[10rem_1fr_5rem] items-center gap-2 text-xs"
              data-testid="inspector-kind"
              data-kind={row.kind}
            >
              <span className="truncate text-zinc-700 dark:text-zinc-300">
                {MESSAGE_KIND_LABELS[row.kind]} {row.count > 1 ? `×${row.count}` : ""}
              </span>
              <span className="h-2 overflow-hidden rounded-full bg-zinc-100 dark:bg-zinc-800" aria-hidden="true">
                <span className="block h-full rounded-full bg-sky-500" style={{ width: `${Math.max(1, Math.round(share * 100))}%` }} />
              </span>
              <span className="text-right text-zinc-600 tabular-nums dark:text-zinc-400">~{formatTokens(row.tokens)}</span>
            </li>
          );
        })}
      </ul>
    </section>
  );
}

function MessageItem({ entry, message }: { entry: MessageEntry; message: ModelCallRecord["request"]["messages"][number] }) {
  const highlight = entry.kind === "subagent_result" || entry.kind === "summary" || entry.kind === "objective" || entry.kind === "steering";
  return (
    <li
      className={`rounded-md border px-2.5 py-1.5 ${highlight ? "border-sky-200 dark:border-sky-900" : "border-zinc-200 dark:border-zinc-800"}`}
      data-testid="inspector-message"
      data-kind={entry.kind}
    >
      <details>
        <summary className="flex cursor-pointer items-center gap-2 text-xs">
          <span className="w-6 shrink-0 text-zinc-500 tabular-nums dark:text-zinc-400">{entry.index + 1}</span>
          <span className="font-mono text-zinc-600 dark:text-zinc-400">{entry.role}</span>
          <span className={`font-medium ${highlight ? "text-sky-800 dark:text-sky-300" : "text-zinc-800 dark:text-zinc-200"}`}>
            {MESSAGE_KIND_LABELS[entry.kind]}
          </span>
          {message.toolName ? <span className="truncate font-mono text-zinc-600 dark:text-zinc-400">{message.toolName}</span> : null}
          <span className="ml-auto shrink-0 text-zinc-600 tabular-nums dark:text-zinc-400">~{formatTokens(entry.tokens)} tok</span>
        </summary>
        <div className="mt-1.5">
          {message.content ? <Clipped text={message.content} /> : null}
          {message.toolCalls?.map((call) => (
            <p key={call.id} className="mt-1 font-mono text-xs break-words text-zinc-700 dark:text-zinc-300">
              → {call.name}({call.arguments})
            </p>
          ))}
        </div>
      </details>
    </li>
  );
}

function Clipped({ text }: { text: string }) {
  const [all, setAll] = useState(false);
  const clipped = !all && text.length > CLIP_CHARS;
  const shown = useRef<HTMLPreElement>(null);
  const showAll = () => {
    setAll(true);
    // The button goes away with this click: focus moves to the text it reveals, so it stays
    // in the dialog (on the body, the dialog's Escape and Tab would no longer reach it).
    shown.current?.focus();
  };
  return (
    <div>
      <pre
        ref={shown}
        // A scrolling region: reachable by keyboard, and where "Show all" leaves the focus.
        tabIndex={0}
        className="max-h-96 overflow-auto rounded bg-zinc-50 p-2 text-xs break-words whitespace-pre-wrap text-zinc-800 dark:bg-zinc-950 dark:text-zinc-200"
      >
        {clipped ? `${text.slice(0, CLIP_CHARS)}…` : text}
      </pre>
      {clipped ? (
        <button type="button" onClick={showAll} className="mt-1 text-xs text-sky-700 underline dark:text-sky-400">
          Show all {text.length.toLocaleString()} characters
        </button>
      ) : null}
    </div>
  );
}

function Row({ label, children }: { label: string; children: ReactNode }) {
  return (
    <>
      <dt className="text-zinc-600 dark:text-zinc-400">{label}</dt>
      <dd className="min-w-0 break-words text-zinc-800 dark:text-zinc-200">{children}</dd>
    </>
  );
}
