"use client";

import { turnOfHash } from "@/lib/notifications/chat-link";
import { useEffect, useLayoutEffect, useRef, useState, type ReactNode } from "react";
import type { ChatTurn } from "@/lib/contracts";
import type { PendingPrompt } from "@/lib/chat/session-state";
import { AlertIcon, SpinnerIcon } from "@/components/ui/icons";
import { RunFinderProvider, runOfHash, showPanel } from "@/components/subagents/retry-links";
import { findRun } from "@/lib/turn/retries";
import { AssistantMessage, Working } from "./assistant-message";
import type { OlderTurns } from "./use-session";
import { UserMessage } from "./user-message";
import { AttachmentChips } from "@/components/attachments/attachment-chips";
import { TURNS_PER_PAGE } from "./turn-window";
import { onTurnRequest, showTurn, takeTurnRequest } from "./turn-seek";
import { useSeek } from "./use-seek";
import { REVEAL_EVENT } from "@/components/steps/reveal-window";

/** Within this many pixels of the bottom, the list follows new content. */
const STICK_THRESHOLD_PX = 80;
/** A scroll this soon after the reader's wheel, touch or key is theirs. */
const INPUT_GRACE_MS = 300;
/** Growth this soon after a click is the reader opening something, not the stream. */
const CLICK_GRACE_MS = 400;

export interface MessageListProps {
  turns: readonly ChatTurn[];
  /** Prompts sent but not started yet, shown after the turns. */
  pending: readonly PendingPrompt[];
  /** Shown under the turns (e.g. a command error), inside the scroll area. */
  footer?: ReactNode;
  /** Turns the server holds before `turns`: loaded when the reader nears the top. */
  older?: OlderTurns;
}

/**
 * Follows the stream while the reader is at the bottom; scrolling up to read an earlier
 * panel is never undone by the next token, and a new prompt always comes into view.
 *
 * Only the reader can stop the following: a scroll that moves up while the content kept
 * its height. Content that grows or shrinks (a panel appearing, Chromium's scroll
 * anchoring) also fires scroll events, and once took "follow" away mid-stream.
 */
export function MessageList({ turns, pending, footer, older }: MessageListProps) {
  const scroller = useRef<HTMLDivElement>(null);
  const content = useRef<HTMLDivElement>(null);
  const stick = useRef(true);
  const [showJump, setShowJump] = useState(false);
  const [shown, setShown] = useState(TURNS_PER_PAGE);
  const sentinel = useRef<HTMLDivElement>(null);
  const heightBeforeMore = useRef<number | null>(null);
  const hidden = Math.max(0, turns.length - shown);
  // Once every loaded turn is shown, nearing the top asks the server for the page before.
  // A page that arrives is held back like any hidden turns and revealed by the same
  // observer, so the reader's place is kept the same way.
  const canLoad = hidden === 0 && !!older?.hasMore && !older.loading && !older.error;
  const loadOlder = useRef(older?.load);
  loadOlder.current = older?.load;

  useEffect(() => {
    const el = scroller.current;
    const inner = content.current;
    if (!el || !inner) return;
    el.scrollTop = el.scrollHeight;
    let last = { top: el.scrollTop, height: el.scrollHeight };
    // The reader's hand on the wheel, the screen or the keys: a scroll up soon after is
    // theirs even if the content changed height in the same moment.
    let lastInput = 0;
    const onScroll = () => {
      const atBottom = el.scrollHeight - el.scrollTop - el.clientHeight < STICK_THRESHOLD_PX;
      const movedUp = el.scrollTop < last.top;
      const byReader = el.scrollHeight === last.height || Date.now() - lastInput < INPUT_GRACE_MS;
      if (atBottom) stick.current = true;
      else if (movedUp && byReader) stick.current = false;
      last = { top: el.scrollTop, height: el.scrollHeight };
      setShowJump(!stick.current && !atBottom);
    };
    const onInput = () => {
      lastInput = Date.now();
    };
    const onWheel = (e: WheelEvent) => {
      onInput();
      // Up, with somewhere to go: the reader wants to read above; stop following now,
      // before the next token's scroll-to-bottom can undo it.
      if (e.deltaY < 0 && el.scrollTop > 0) {
        stick.current = false;
        setShowJump(true);
      }
    };
    let lastClick = 0;
    const onClick = () => {
      lastClick = Date.now();
    };
    const observer = new ResizeObserver(() => {
      // Expanding a panel must keep its header where the reader clicked it: the reader
      // is reading there now, so the list follows only if that is still the bottom.
      if (Date.now() - lastClick < CLICK_GRACE_MS) {
        stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < STICK_THRESHOLD_PX;
        return onScroll();
      }
      if (stick.current) el.scrollTop = el.scrollHeight;
      else onScroll();
    });
    // Something shown at the reader's request (a timeline row, an approval) is where they
    // want to be: opening its panels grows the page, and following would scroll it away.
    const onReveal = () => {
      stick.current = false;
    };
    observer.observe(inner);
    document.addEventListener(REVEAL_EVENT, onReveal);
    el.addEventListener("scroll", onScroll, { passive: true });
    el.addEventListener("wheel", onWheel, { passive: true });
    el.addEventListener("touchmove", onInput, { passive: true });
    el.addEventListener("keydown", onInput);
    el.addEventListener("pointerdown", onInput);
    inner.addEventListener("click", onClick, { capture: true });
    return () => {
      observer.disconnect();
      document.removeEventListener(REVEAL_EVENT, onReveal);
      el.removeEventListener("scroll", onScroll);
      el.removeEventListener("wheel", onWheel);
      el.removeEventListener("touchmove", onInput);
      el.removeEventListener("keydown", onInput);
      el.removeEventListener("pointerdown", onInput);
      inner.removeEventListener("click", onClick, { capture: true });
    };
  }, []);

  // Never more than are held: turns prepended later must wait to be revealed, with the
  // reader's place kept, rather than appear above them at once.
  const revealMore = () => {
    if (scroller.current) heightBeforeMore.current = scroller.current.scrollHeight;
    setShown((n) => n + Math.min(TURNS_PER_PAGE, hidden));
  };

  // Reveal older turns (or load them) when the reader reaches the top of what is rendered.
  useEffect(() => {
    const el = scroller.current;
    const top = sentinel.current;
    if (!el || !top || (hidden === 0 && !canLoad)) return;
    const observer = new IntersectionObserver(
      ([entry]) => {
        if (!entry?.isIntersecting) return;
        if (hidden === 0) return loadOlder.current?.();
        heightBeforeMore.current = el.scrollHeight;
        setShown((n) => n + Math.min(TURNS_PER_PAGE, hidden));
      },
      { root: el, rootMargin: "200px 0px 0px 0px" },
    );
    observer.observe(top);
    return () => observer.disconnect();
  }, [hidden, canLoad]);

  // Keep the reader's place: older turns grow the list above what they are reading.
  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el || heightBeforeMore.current === null) return;
    el.scrollTop += el.scrollHeight - heightBeforeMore.current;
    heightBeforeMore.current = null;
  }, [shown]);

  // A new prompt (sent here or in another tab) is what the reader wants to see next;
  // older turns loaded above are not new prompts.
  const firstTurnId = turns[0]?.turnId;
  const promptsBefore = useRef({ count: turns.length + pending.length, first: firstTurnId });
  useLayoutEffect(() => {
    const el = scroller.current;
    const before = promptsBefore.current;
    const prepended =
      before.first !== undefined && firstTurnId !== before.first
        ? Math.max(
            0,
            turns.findIndex((t) => t.turnId === before.first),
          )
        : 0;
    const count = turns.length + pending.length;
    if (count - prepended > before.count && el) {
      stick.current = true;
      setShowJump(false);
      el.scrollTop = el.scrollHeight;
    }
    promptsBefore.current = { count, first: firstTurnId };
  }, [turns, pending.length, firstTurnId]);

  const reveal = (index: number) => {
    if (scroller.current) heightBeforeMore.current = scroller.current.scrollHeight;
    setShown(turns.length - index);
  };
  const view = { turns, hidden, older, reveal };

  // A "Retry of" link to a run not in the page: walk to its turn, then show its panel.
  const seekRun = useSeek((turn, runId: string) => !!findRun([turn], runId), showPanel, view);
  // A link to a panel (`#run-…`) clicked before the page was interactive, or opened from
  // the address bar, or a hash changed by hand: the browser alone cannot reach a panel
  // whose turn is not loaded yet.
  useEffect(() => {
    const fromHash = () => {
      const runId = runOfHash(window.location.hash);
      if (runId && !showPanel(runId)) seekRun(runId);
    };
    fromHash();
    window.addEventListener("hashchange", fromHash);
    return () => window.removeEventListener("hashchange", fromHash);
  }, [seekRun]);

  // A search result's turn: the same walk, by turn id, then scrolled to.
  const seekTurn = useSeek(
    (turn, turnId: string) => turn.turnId === turnId,
    (turnId) => {
      // The reader asked to be here: the list stops following the bottom.
      stick.current = false;
      if (showTurn(turnId)) setShowJump(true);
    },
    view,
  );
  const sessionId = turns[0]?.sessionId;
  useEffect(() => {
    if (!sessionId) return;
    const take = () => {
      const turnId = takeTurnRequest(sessionId);
      if (turnId) seekTurn(turnId);
    };
    take();
    return onTurnRequest(take);
  }, [sessionId, seekTurn]);
  // A notification's link to a turn (`#turn-…`): the same walk as a search result's.
  useEffect(() => {
    const fromHash = () => {
      const turnId = turnOfHash(window.location.hash);
      if (turnId) seekTurn(turnId);
    };
    fromHash();
    window.addEventListener("hashchange", fromHash);
    return () => window.removeEventListener("hashchange", fromHash);
  }, [seekTurn]);

  const jump = () => {
    const el = scroller.current;
    if (!el) return;
    stick.current = true;
    el.scrollTo({ top: el.scrollHeight, behavior: "smooth" });
  };

  return (
    <div className="flex min-h-0 flex-1 flex-col">
      {/* relative: positioned descendants (screen-reader text) stay inside the scroll area
          instead of making the page itself taller than the window. */}
      <div
        ref={scroller}
        className="relative min-h-0 flex-1 overflow-y-auto sm:[scrollbar-gutter:stable_both-edges]"
        data-testid="message-list"
      >
        <div ref={content} className="mx-auto w-full max-w-3xl space-y-6 px-3 pt-6 pb-6 sm:px-4">
          {hidden > 0 || older?.hasMore ? (
            <div ref={sentinel}>
              <EarlierTurns hidden={hidden} older={older} onReveal={revealMore} />
            </div>
          ) : null}
          <RunFinderProvider value={seekRun}>
            {turns.slice(hidden).map((turn) => (
              <div
                key={turn.turnId}
                className="scroll-mt-4 space-y-4 rounded-lg data-[sought=true]:outline-2 data-[sought=true]:outline-offset-4 data-[sought=true]:outline-sky-400"
              >
                <UserMessage text={turn.prompt} turnId={turn.turnId} sentBy={turn.sentBy} />
                <AttachmentChips sessionId={turn.sessionId} attachments={turn.attachments} />
                <AssistantMessage turn={turn} />
              </div>
            ))}
          </RunFinderProvider>
          {pending.map((p) => (
            <div key={p.clientId} className="space-y-4">
              <UserMessage text={p.prompt} />
              <PendingAnswer prompt={p} />
            </div>
          ))}
          {footer}
        </div>
      </div>
      {/* In the layout, not over the list: it never covers what the reader is reading, and
          the list shrinking from below leaves their place where it is. */}
      {showJump ? (
        <div className="flex shrink-0 justify-center pt-1.5">
          <button
            type="button"
            onClick={jump}
            className="rounded-full border border-zinc-200 bg-white px-3 py-1 text-xs font-medium text-zinc-700 shadow-sm hover:bg-zinc-50 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-200 dark:hover:bg-zinc-800"
          >
            Jump to latest ↓
          </button>
        </div>
      ) : null}
    </div>
  );
}

/**
 * The line above the turns while earlier ones exist: how many are held back, or that a
 * page is loading, or why it failed with a way to try again. One button throughout, so
 * a keyboard user can load page after page without losing focus.
 */
function EarlierTurns({ hidden, older, onReveal }: { hidden: number; older?: OlderTurns; onReveal: () => void }) {
  const loading = hidden === 0 && !!older?.loading;
  const error = hidden === 0 ? (older?.error ?? null) : null;
  const label =
    hidden > 0
      ? `Show ${hidden} earlier ${hidden === 1 ? "turn" : "turns"}`
      : loading
        ? "Loading earlier turns…"
        : error
          ? "Try again"
          : "Load earlier turns";
  return (
    <div
      className="flex flex-col items-center gap-1.5 text-xs text-zinc-600 dark:text-zinc-400"
      data-testid="earlier-turns"
      aria-live="polite"
    >
      {error ? (
        <p role="alert" className="flex items-center gap-1.5 text-red-700 dark:text-red-400" data-testid="earlier-turns-error">
          <AlertIcon size={14} className="shrink-0" /> Could not load earlier turns: {error}
        </p>
      ) : null}
      <button
        type="button"
        data-testid="load-earlier"
        aria-disabled={loading || undefined}
        onClick={() => (hidden > 0 ? onReveal() : loading ? undefined : older?.load())}
        className="flex items-center gap-1.5 rounded-full border border-zinc-200 px-3 py-1 font-medium hover:bg-zinc-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-500 aria-disabled:cursor-progress dark:border-zinc-700 dark:hover:bg-zinc-800"
      >
        {loading ? <SpinnerIcon size={12} /> : null}
        {label}
      </button>
    </div>
  );
}

/** Where a prompt's answer will appear: a quiet "Sending…", or why it was not sent. */
function PendingAnswer({ prompt }: { prompt: PendingPrompt }) {
  if (!prompt.error) {
    return (
      <div data-testid="message-assistant" data-status="sending" aria-busy="true">
        <Working label="Sending…" />
      </div>
    );
  }
  return (
    <div
      role="alert"
      data-testid="message-assistant"
      data-status="failed"
      className="flex items-start gap-2 rounded-lg border border-red-200 bg-red-50 px-3 py-2.5 text-sm text-red-800 dark:border-red-900/70 dark:bg-red-950/40 dark:text-red-300"
    >
      <AlertIcon className="mt-0.5 shrink-0" />
      <p className="min-w-0 break-words whitespace-pre-wrap" data-testid="turn-error">
        {prompt.error}
      </p>
    </div>
  );
}
