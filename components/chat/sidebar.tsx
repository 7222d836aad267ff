"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { memo, useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { SessionSummary } from "@/lib/contracts";
import { PlusIcon, XIcon } from "@/components/ui/icons";
import { AGENTS_PATH } from "@/lib/agents/links";
import { USAGE_PATH } from "@/lib/usage/links";
import { TOKENS_PATH } from "@/lib/api-tokens/links";
import { ImportButton } from "./import-button";
import { groupByDay } from "./session-date";
import { repeatedTitles, SessionItem } from "./session-item";
import { SessionSearch, useSessionSearch } from "./session-search";
import { useSessions, type SessionsApi } from "./sessions-context";

export interface SidebarProps {
  currentSessionId: string | null;
  /** The A2A server is on: the footer links the tokens page. */
  a2aServer?: boolean;
  /** Drawer state on narrow screens; ignored from md up, where the sidebar is always shown. */
  open: boolean;
  onClose: () => void;
  /** Called when "New chat" starts leaving the current chat (locks its composer). */
  onLeave: () => void;
}

/** From this width the sidebar is a column beside the chat, not a modal drawer. */
const DESKTOP_QUERY = "(min-width: 768px)";
const FOOTER_LINK = "rounded-md px-2 py-1 text-xs font-medium text-zinc-600 hover:bg-zinc-200 dark:text-zinc-300 dark:hover:bg-zinc-800";
const FOCUSABLE = 'a[href], button:not([disabled]), input:not([disabled]), [tabindex]:not([tabindex="-1"])';

/** While the drawer covers the chat, Tab cycles inside it instead of reaching what is hidden behind. */
function keepFocusInside(container: HTMLElement, e: KeyboardEvent): void {
  const items = [...container.querySelectorAll<HTMLElement>(FOCUSABLE)];
  const first = items[0];
  const last = items.at(-1);
  if (!first || !last) return;
  const active = document.activeElement;
  if (!container.contains(active) || (e.shiftKey && active === first)) {
    e.preventDefault();
    (e.shiftKey ? last : first).focus();
  } else if (!e.shiftKey && active === last) {
    e.preventDefault();
    first.focus();
  }
}

export function Sidebar({ currentSessionId, open, onClose, onLeave, a2aServer = false }: SidebarProps) {
  const { sessions, loadError, rename, remove, hasMore, loadingMore, moreError, loadMore } = useSessions();
  const search = useSessionSearch();
  // The clock for "09:05 / Yesterday" labels: a minute is fine-grained enough, and the
  // list (thousands of chats, paged) should not re-render with the page's one-second clock.
  const [now, setNow] = useState<number | null>(null);
  useEffect(() => {
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), 60_000);
    return () => clearInterval(timer);
  }, []);
  const repeated = useMemo(() => repeatedTitles(sessions ?? []), [sessions]);
  const router = useRouter();
  const closeButton = useRef<HTMLButtonElement>(null);
  const drawer = useRef<HTMLElement>(null);

  useEffect(() => {
    if (!open) return;
    // Keyboard and screen-reader users land inside the drawer they just opened.
    closeButton.current?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape") {
        e.preventDefault();
        onClose();
      }
      if (e.key === "Tab" && drawer.current && !window.matchMedia(DESKTOP_QUERY).matches) keepFocusInside(drawer.current, e);
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [open, onClose]);

  // The start page creates the session with its first prompt, so "New chat" never
  // leaves an empty session behind.
  const newSession = () => {
    onClose();
    if (currentSessionId === null) {
      document.getElementById("composer")?.focus();
      return;
    }
    onLeave();
    router.push("/");
  };

  const goHome = useCallback(() => router.push("/"), [router]);
  const renderItem = (s: SessionSummary) => (
    <SessionRow
      key={s.sessionId}
      session={s}
      current={s.sessionId === currentSessionId}
      now={now}
      titleRepeats={repeated.has(s.title)}
      onNavigate={onClose}
      rename={rename}
      remove={remove}
      goHome={goHome}
    />
  );

  // The next page loads as the reader nears the bottom of the list.
  const list = useRef<HTMLElement>(null);
  const bottom = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const root = list.current;
    const target = bottom.current;
    if (!root || !target || !hasMore || loadingMore || moreError) return;
    const observer = new IntersectionObserver(([entry]) => entry?.isIntersecting && loadMore(), { root, rootMargin: "0px 0px 600px 0px" });
    observer.observe(target);
    return () => observer.disconnect();
  }, [hasMore, loadingMore, moreError, loadMore, search.active]);

  return (
    <>
      <div
        aria-hidden="true"
        onClick={onClose}
        className={`fixed inset-0 z-30 bg-zinc-950/40 transition-opacity md:hidden ${open ? "opacity-100" : "pointer-events-none opacity-0"}`}
      />
      <aside
        ref={drawer}
        id="session-sidebar"
        aria-label="Chats"
        className={`fixed inset-y-0 left-0 z-40 flex w-72 max-w-[85vw] flex-col border-r border-zinc-200 bg-zinc-50 transition-[translate,visibility] duration-200 md:visible md:static md:z-auto md:max-w-none md:translate-x-0 dark:border-zinc-800 dark:bg-zinc-900 ${
          open ? "visible translate-x-0" : "invisible -translate-x-full"
        }`}
      >
        <div className="flex items-center justify-between gap-2 px-3 pt-3 pb-2">
          <Link href="/" onClick={onClose} className="rounded-md px-1.5 py-1 text-base font-semibold tracking-tight">
            Delegate
          </Link>
          <button
            ref={closeButton}
            type="button"
            onClick={onClose}
            aria-label="Close sidebar"
            className="rounded-md p-2 text-zinc-500 hover:bg-zinc-200 md:hidden dark:hover:bg-zinc-800"
          >
            <XIcon />
          </button>
        </div>
        <div className="px-3 pb-2">
          <button
            type="button"
            data-testid="new-session"
            onClick={newSession}
            className="flex w-full items-center justify-center gap-2 rounded-md border border-zinc-300 bg-white px-3 py-2 text-sm font-medium text-zinc-800 shadow-xs hover:bg-zinc-100 disabled:opacity-60 dark:border-zinc-700 dark:bg-zinc-950 dark:text-zinc-100 dark:hover:bg-zinc-800"
          >
            <PlusIcon />
            New chat
          </button>
          <div className="mt-1">
            <ImportButton onDone={onClose} />
          </div>
        </div>
        <SessionSearch search={search} now={now} onNavigate={onClose} />
        <nav ref={list} aria-label="Sessions" hidden={search.active} className="relative min-h-0 flex-1 overflow-y-auto px-2 pb-3">
          {sessions === null ? (
            loadError ? (
              <p role="alert" className="px-2 py-2 text-sm text-red-700 dark:text-red-400">
                Could not load chats: {loadError}
              </p>
            ) : (
              <SessionsSkeleton />
            )
          ) : sessions.length === 0 ? (
            <p className="px-2.5 py-2 text-sm text-zinc-500 dark:text-zinc-400">No chats yet.</p>
          ) : (
            <div className="space-y-3">
              {(now === null ? [{ label: null, sessions }] : groupByDay(sessions, new Date(now))).map((group) => (
                <section key={group.label ?? "all"} aria-label={group.label ?? undefined}>
                  {group.label ? (
                    <h2 className="px-2.5 pb-1 text-[11px] font-semibold tracking-wide text-zinc-600 uppercase dark:text-zinc-400">
                      {group.label}
                    </h2>
                  ) : null}
                  <ul className="space-y-0.5">{group.sessions.map(renderItem)}</ul>
                </section>
              ))}
              <div ref={bottom} data-testid="sessions-end" data-has-more={hasMore ? "true" : undefined}>
                {moreError ? (
                  <p role="alert" className="px-2.5 py-1 text-xs text-red-700 dark:text-red-400">
                    Could not load more chats: {moreError}{" "}
                    <button type="button" onClick={loadMore} className="underline">
                      Retry
                    </button>
                  </p>
                ) : loadingMore ? (
                  <p role="status" className="px-2.5 py-1 text-xs text-zinc-600 dark:text-zinc-400">
                    Loading more chats…
                  </p>
                ) : null}
              </div>
            </div>
          )}
        </nav>
        {/* Pages about all of a person's chats, reachable in every mode (the account menu exists only with accounts). */}
        <nav aria-label="More" className="flex gap-1 border-t border-zinc-200 px-3 py-2 dark:border-zinc-800">
          <Link href={AGENTS_PATH} onClick={onClose} data-testid="sidebar-agents" className={FOOTER_LINK}>
            Agents
          </Link>
          <Link href={USAGE_PATH} onClick={onClose} data-testid="sidebar-usage" className={FOOTER_LINK}>
            Usage
          </Link>
          {a2aServer ? (
            <Link href={TOKENS_PATH} onClick={onClose} data-testid="sidebar-tokens" className={FOOTER_LINK}>
              Tokens
            </Link>
          ) : null}
        </nav>
      </aside>
    </>
  );
}

/**
 * One chat of the list, re-rendered only when its own props change: with thousands of
 * chats loaded, a rename or a new page must not re-render every row.
 */
const SessionRow = memo(function SessionRow({
  session,
  current,
  now,
  titleRepeats,
  onNavigate,
  rename,
  remove,
  goHome,
}: {
  session: SessionSummary;
  current: boolean;
  now: number | null;
  titleRepeats: boolean;
  onNavigate: () => void;
  rename: SessionsApi["rename"];
  remove: SessionsApi["remove"];
  goHome: () => void;
}) {
  return (
    <SessionItem
      session={session}
      current={current}
      now={now}
      titleRepeats={titleRepeats}
      onNavigate={onNavigate}
      onRename={async (title) => {
        const ack = await rename(session.sessionId, title);
        return ack.ok ? null : `Could not rename: ${ack.message}`;
      }}
      onDelete={async () => {
        const ack = await remove(session.sessionId);
        if (!ack.ok) return `Could not delete: ${ack.message}`;
        if (current) goHome();
        return null;
      }}
    />
  );
});

function SessionsSkeleton() {
  return (
    <div aria-label="Loading chats" className="space-y-1.5 px-1 pt-1">
      {[70, 55, 80].map((w) => (
        <div key={w} className="h-7 animate-pulse rounded-md bg-zinc-200/70 dark:bg-zinc-800" style={{ width: `${w}%` }} />
      ))}
    </div>
  );
}
