"use client";

import Link from "next/link";
import { useEffect, useRef, useState, type FormEvent } from "react";
import { MAX_TITLE_CHARS, type SessionSummary } from "@/lib/contracts";
import { PencilIcon, TrashIcon } from "@/components/ui/icons";
import { sessionDate, sessionDateTitle } from "./session-date";

/** Titles more than one chat has. */
export function repeatedTitles(sessions: readonly SessionSummary[]): Set<string> {
  const seen = new Set<string>();
  const repeated = new Set<string>();
  for (const { title } of sessions) (seen.has(title) ? repeated : seen).add(title);
  return repeated;
}

export interface SessionItemProps {
  session: SessionSummary;
  current: boolean;
  /** The clock for the date label; null until the browser has one (no server/client mismatch). */
  now: number | null;
  /** Another chat has the same title: the label adds the time to tell them apart. */
  titleRepeats: boolean;
  onNavigate: () => void;
  onRename: (title: string) => Promise<string | null>;
  onDelete: () => Promise<string | null>;
}

type Mode = "view" | "rename" | "confirm-delete";

/** One session in the sidebar: a link, an inline rename field, and a two-step delete. */
export function SessionItem({ session, current, now, titleRepeats, onNavigate, onRename, onDelete }: SessionItemProps) {
  const [mode, setMode] = useState<Mode>("view");
  const [draft, setDraft] = useState(session.title);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const input = useRef<HTMLInputElement>(null);

  useEffect(() => {
    if (mode === "rename") input.current?.select();
  }, [mode]);

  const startRename = () => {
    setDraft(session.title);
    setError(null);
    setMode("rename");
  };

  const saveRename = async (e?: FormEvent) => {
    e?.preventDefault();
    if (busy) return;
    const title = draft.trim();
    if (!title || title === session.title) {
      setMode("view");
      return;
    }
    setBusy(true);
    const failure = await onRename(title);
    setBusy(false);
    if (failure) setError(failure);
    else setMode("view");
  };

  const confirmDelete = async () => {
    setBusy(true);
    const failure = await onDelete();
    setBusy(false);
    if (failure) setError(failure);
    setMode("view");
  };

  const base = `group relative flex items-center rounded-md text-sm ${
    current
      ? "bg-zinc-200/80 text-zinc-900 dark:bg-zinc-800 dark:text-zinc-50"
      : "text-zinc-700 hover:bg-zinc-200/50 dark:text-zinc-300 dark:hover:bg-zinc-800/60"
  }`;

  return (
    // Rows out of view skip layout and paint (a list can hold thousands); 36px is a row's height.
    <li
      data-testid="session-item"
      data-session-id={session.sessionId}
      data-current={current ? "true" : undefined}
      className="[contain-intrinsic-size:auto_36px] [content-visibility:auto]"
    >
      {mode === "rename" ? (
        <form onSubmit={saveRename} className="px-1 py-0.5">
          <label className="sr-only" htmlFor={`rename-${session.sessionId}`}>
            Rename session
          </label>
          <input
            ref={input}
            id={`rename-${session.sessionId}`}
            data-testid="session-rename-input"
            value={draft}
            maxLength={MAX_TITLE_CHARS}
            disabled={busy}
            onChange={(e) => setDraft(e.target.value)}
            onBlur={() => void saveRename()}
            onKeyDown={(e) => {
              if (e.key === "Escape") {
                e.preventDefault();
                setMode("view");
              }
            }}
            className="w-full rounded-md border border-sky-500 bg-white px-2 py-1.5 text-sm focus:outline-none dark:bg-zinc-950"
          />
        </form>
      ) : mode === "confirm-delete" ? (
        <div className="flex flex-wrap items-center gap-1.5 rounded-md bg-red-50 px-2 py-1.5 text-sm dark:bg-red-950/40">
          <span className="min-w-0 flex-1 truncate text-red-800 dark:text-red-300">Delete “{session.title}”?</span>
          <button
            type="button"
            data-testid="session-delete-confirm"
            onClick={confirmDelete}
            disabled={busy}
            className="rounded bg-red-600 px-2 py-0.5 text-xs font-medium text-white hover:bg-red-700 disabled:opacity-50"
          >
            Delete
          </button>
          <button
            type="button"
            onClick={() => setMode("view")}
            className="rounded px-2 py-0.5 text-xs text-zinc-600 hover:bg-zinc-200 dark:text-zinc-300 dark:hover:bg-zinc-800"
          >
            Cancel
          </button>
        </div>
      ) : (
        <div className={base}>
          <Link
            href={`/c/${encodeURIComponent(session.sessionId)}`}
            onClick={onNavigate}
            aria-current={current ? "page" : undefined}
            className="flex min-w-0 flex-1 items-baseline gap-2 rounded-md px-2.5 py-2"
            title={`${session.title}${session.shared ? `\nShared with you by ${session.shared.owner} (${session.shared.role})` : ""}\n${sessionDateTitle(session.updatedAt)}`}
            onDoubleClick={session.shared ? undefined : startRename}
          >
            <span className="flex min-w-0 flex-1 flex-col">
              <span className="truncate">{session.title}</span>
              {session.shared ? (
                <span data-testid="session-shared" className="truncate text-[11px] text-sky-700 dark:text-sky-400">
                  Shared by {session.shared.owner}
                </span>
              ) : null}
            </span>
            {now !== null ? (
              <span
                data-testid="session-date"
                className={`shrink-0 text-[11px] tabular-nums ${current ? "text-zinc-600 dark:text-zinc-300" : "text-zinc-500 dark:text-zinc-400"}`}
              >
                {sessionDate(session.updatedAt, new Date(now), titleRepeats)}
              </span>
            ) : null}
          </Link>
          {/* A shared chat is its owner's to rename and delete. */}
          {session.shared ? null : (
            <div
              className={`flex shrink-0 pr-1 ${current ? "" : "opacity-100 md:opacity-0 md:group-focus-within:opacity-100 md:group-hover:opacity-100"}`}
            >
              <button
                type="button"
                data-testid="session-rename"
                onClick={startRename}
                aria-label={`Rename “${session.title}”`}
                title="Rename"
                className="rounded p-1 text-zinc-500 hover:bg-zinc-300/60 hover:text-zinc-900 dark:text-zinc-400 dark:hover:bg-zinc-700 dark:hover:text-zinc-100"
              >
                <PencilIcon size={14} />
              </button>
              <button
                type="button"
                data-testid="session-delete"
                onClick={() => {
                  setError(null);
                  setMode("confirm-delete");
                }}
                aria-label={`Delete “${session.title}”`}
                title="Delete"
                className="rounded p-1 text-zinc-500 hover:bg-zinc-300/60 hover:text-red-700 dark:text-zinc-400 dark:hover:bg-zinc-700 dark:hover:text-red-400"
              >
                <TrashIcon size={14} />
              </button>
            </div>
          )}
        </div>
      )}
      {error ? (
        <p role="alert" className="px-2.5 pt-0.5 pb-1 text-xs text-red-700 dark:text-red-400">
          {error}
        </p>
      ) : null}
    </li>
  );
}
