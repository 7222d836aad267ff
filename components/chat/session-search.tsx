"use client";

import { useRouter } from "next/navigation";
import { useEffect, useId, useRef, useState, type KeyboardEvent } from "react";
import { MAX_SEARCH_CHARS, type HighlightRanges, type SearchHit, type SearchResults } from "@/lib/contracts";
import { snippetParts } from "@/lib/search/terms";
import { getSocket, request } from "@/components/realtime/socket";
import { SearchIcon, SpinnerIcon, XIcon } from "@/components/ui/icons";
import { sessionDate, sessionDateTitle } from "./session-date";
import { useSessions } from "./sessions-context";
import { requestTurn } from "./turn-seek";

/** Typing pauses this long before a search is sent. */
const DEBOUNCE_MS = 200;

type SearchState =
  | { kind: "idle" }
  | { kind: "loading"; previous: SearchResults | null }
  | { kind: "done"; results: SearchResults }
  | { kind: "error"; message: string };

export interface SessionSearchApi {
  query: string;
  setQuery: (query: string) => void;
  subagents: boolean;
  setSubagents: (on: boolean) => void;
  state: SearchState;
  /** A query is typed: the sidebar shows results instead of the list. */
  active: boolean;
}

/** The search box's state: debounced queries over `session:search`, answers older than the last query dropped. */
export function useSessionSearch(): SessionSearchApi {
  const [query, setQuery] = useState("");
  const [subagents, setSubagents] = useState(false);
  const [state, setState] = useState<SearchState>({ kind: "idle" });
  const asked = useRef(0);
  const active = query.trim() !== "";

  useEffect(() => {
    const n = ++asked.current;
    if (!active) {
      setState({ kind: "idle" });
      return;
    }
    setState((s) => ({ kind: "loading", previous: s.kind === "done" ? s.results : s.kind === "loading" ? s.previous : null }));
    const timer = setTimeout(() => {
      void request(getSocket(), "session:search", { query: query.slice(0, MAX_SEARCH_CHARS), subagents }).then((ack) => {
        if (n !== asked.current) return;
        setState(ack.ok ? { kind: "done", results: ack.data } : { kind: "error", message: ack.message });
      });
    }, DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [query, subagents, active]);

  return { query, setQuery, subagents, setSubagents, state, active };
}

const resultId = (base: string, i: number) => `${base}-result-${i}`;

/**
 * The search box at the top of the sidebar, and its results in place of the list while a
 * query is typed. "/" or Ctrl/Cmd+K focuses it from anywhere, Escape clears it, the arrows
 * move through the results and Enter opens one (at the matching turn).
 */
export function SessionSearch({ search, now, onNavigate }: { search: SessionSearchApi; now: number | null; onNavigate: () => void }) {
  const { query, setQuery, subagents, setSubagents, state, active } = search;
  const input = useRef<HTMLInputElement>(null);
  const base = useId();
  const [selected, setSelected] = useState(0);
  const router = useRouter();
  const { remember } = useSessions();
  const hits = state.kind === "done" ? state.results.hits : state.kind === "loading" ? (state.previous?.hits ?? []) : [];

  useEffect(() => setSelected(0), [state]);

  useEffect(() => {
    const onKey = (e: globalThis.KeyboardEvent) => {
      const typing =
        e.target instanceof HTMLElement && (e.target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(e.target.tagName));
      const slash = e.key === "/" && !typing && !e.ctrlKey && !e.metaKey && !e.altKey;
      const commandK = e.key.toLowerCase() === "k" && (e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey;
      if (!slash && !commandK) return;
      e.preventDefault();
      input.current?.focus();
      input.current?.select();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);

  const open = (hit: SearchHit) => {
    remember(hit.session);
    if (hit.turnId) requestTurn(hit.session.sessionId, hit.turnId);
    onNavigate();
    router.push(`/c/${encodeURIComponent(hit.session.sessionId)}`);
  };

  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === "Escape") {
      if (query === "") return;
      // Clearing the query is all Escape does here: the drawer stays open.
      e.preventDefault();
      e.stopPropagation();
      e.nativeEvent.stopImmediatePropagation();
      setQuery("");
    } else if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      if (hits.length === 0) return;
      e.preventDefault();
      setSelected((i) => (e.key === "ArrowDown" ? Math.min(hits.length - 1, i + 1) : Math.max(0, i - 1)));
    } else if (e.key === "Enter") {
      const hit = hits[selected];
      if (!hit) return;
      e.preventDefault();
      open(hit);
    }
  };

  useEffect(() => {
    document.getElementById(resultId(base, selected))?.scrollIntoView({ block: "nearest" });
  }, [base, selected]);

  return (
    <>
      <div className="px-3 pb-2">
        <div className="relative">
          <label htmlFor={`${base}-input`} className="sr-only">
            Search chats
          </label>
          <SearchIcon
            className="pointer-events-none absolute top-1/2 left-2.5 -translate-y-1/2 text-zinc-500 dark:text-zinc-400"
            size={14}
          />
          <input
            ref={input}
            id={`${base}-input`}
            data-testid="session-search"
            type="search"
            role="combobox"
            aria-expanded={active}
            aria-controls={`${base}-results`}
            aria-autocomplete="list"
            aria-activedescendant={active && hits[selected] ? resultId(base, selected) : undefined}
            aria-keyshortcuts="/ Control+K Meta+K"
            placeholder="Search chats  ( / )"
            autoComplete="off"
            spellCheck={false}
            maxLength={MAX_SEARCH_CHARS}
            value={query}
            onChange={(e) => setQuery(e.target.value)}
            onKeyDown={onKeyDown}
            className="w-full rounded-md border border-zinc-300 bg-white py-1.5 pr-8 pl-8 text-sm text-zinc-900 placeholder:text-zinc-500 focus:border-sky-500 focus:outline-none [&::-webkit-search-cancel-button]:hidden dark:border-zinc-700 dark:bg-zinc-950 dark:text-zinc-100 dark:placeholder:text-zinc-400"
          />
          {query ? (
            <button
              type="button"
              onClick={() => {
                setQuery("");
                input.current?.focus();
              }}
              aria-label="Clear search"
              className="absolute top-1/2 right-1.5 -translate-y-1/2 rounded p-1 text-zinc-500 hover:bg-zinc-200 hover:text-zinc-900 dark:text-zinc-400 dark:hover:bg-zinc-800 dark:hover:text-zinc-100"
            >
              <XIcon size={14} />
            </button>
          ) : null}
        </div>
        {active ? (
          <label className="mt-1.5 flex items-center gap-2 px-0.5 text-xs text-zinc-600 dark:text-zinc-400">
            <input
              type="checkbox"
              data-testid="search-subagents"
              checked={subagents}
              onChange={(e) => setSubagents(e.target.checked)}
              className="accent-sky-600"
            />
            Include subagents’ results
          </label>
        ) : null}
      </div>
      {active ? (
        <div
          id={`${base}-results`}
          data-testid="search-results"
          className="relative min-h-0 flex-1 overflow-y-auto px-2 pb-3"
          aria-busy={state.kind === "loading"}
        >
          {state.kind === "error" ? (
            <p role="alert" className="px-2 py-2 text-sm text-red-700 dark:text-red-400">
              Search failed: {state.message}
            </p>
          ) : hits.length === 0 ? (
            state.kind === "loading" ? (
              <p role="status" className="flex items-center gap-2 px-2.5 py-2 text-sm text-zinc-600 dark:text-zinc-400">
                <SpinnerIcon /> Searching…
              </p>
            ) : (
              <p role="status" data-testid="search-empty" className="px-2.5 py-2 text-sm text-zinc-600 dark:text-zinc-400">
                No chats match “{query.trim()}”.{subagents ? "" : " Try including subagents’ results."}
              </p>
            )
          ) : (
            <>
              <p role="status" className="sr-only">
                {hits.length === 1 ? "1 chat found" : `${hits.length} chats found`}
              </p>
              <ul role="listbox" aria-label="Search results" className="space-y-0.5">
                {hits.map((hit, i) => (
                  <li
                    key={hit.session.sessionId}
                    id={resultId(base, i)}
                    role="option"
                    aria-selected={i === selected}
                    data-testid="search-hit"
                    data-session-id={hit.session.sessionId}
                    onMouseDown={(e) => e.preventDefault()}
                    onClick={() => open(hit)}
                    onMouseMove={() => setSelected(i)}
                    className={`cursor-pointer rounded-md px-2.5 py-2 text-sm ${
                      i === selected
                        ? "bg-zinc-200/80 text-zinc-900 dark:bg-zinc-800 dark:text-zinc-50"
                        : "text-zinc-700 dark:text-zinc-300"
                    }`}
                  >
                    <div className="flex items-baseline gap-2">
                      <span className="min-w-0 flex-1 truncate font-medium">
                        <Highlighted text={hit.session.title} ranges={hit.titleHighlights} />
                      </span>
                      {now !== null ? (
                        <span
                          className="shrink-0 text-[11px] text-zinc-500 tabular-nums dark:text-zinc-400"
                          title={sessionDateTitle(hit.session.updatedAt)}
                        >
                          {sessionDate(hit.session.updatedAt, new Date(now))}
                        </span>
                      ) : null}
                    </div>
                    {hit.snippet.text ? (
                      <p data-testid="search-snippet" className="mt-0.5 line-clamp-2 text-xs break-words text-zinc-600 dark:text-zinc-400">
                        <span className="sr-only">{FIELD_LABEL[hit.field]}: </span>
                        <Highlighted text={hit.snippet.text} ranges={hit.snippet.highlights} />
                      </p>
                    ) : null}
                  </li>
                ))}
              </ul>
            </>
          )}
        </div>
      ) : null}
    </>
  );
}

const FIELD_LABEL: Record<SearchHit["field"], string> = { title: "Title", prompt: "Prompt", answer: "Answer", subagent: "Subagent result" };

/** The text with its ranges in <mark>: React escapes the text, no markup is ever built from it. */
export function Highlighted({ text, ranges }: { text: string; ranges: HighlightRanges }) {
  return (
    <>
      {snippetParts({ text, highlights: ranges }).map((part, i) =>
        part.mark ? (
          <mark key={i} className="rounded-sm bg-amber-200 px-0.5 text-zinc-900 dark:bg-amber-400/30 dark:text-amber-100">
            {part.text}
          </mark>
        ) : (
          <span key={i}>{part.text}</span>
        ),
      )}
    </>
  );
}
