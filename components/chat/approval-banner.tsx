"use client";

import { useEffect, useMemo, useRef } from "react";
import type { ChatTurn } from "@/lib/contracts";
import { pendingApprovals, pendingInputs, type PendingApproval } from "@/lib/turn/approvals";
import { AlertIcon } from "@/components/ui/icons";
import { setDisclosure } from "@/components/ui/disclosure";
import { announceReveal, revealInWindows } from "@/components/steps/reveal-window";
import { runOfHash } from "@/components/subagents/retry-links";
import { turnOfHash } from "@/lib/notifications/chat-link";

const TITLE_MARKS = { approval: "(approval needed) ", input: "(answer needed) " } as const;

/**
 * Above the composer while any call waits for a person: who asks for what, and a button
 * that opens every panel down to the card (a depth-2 request is easily folded away) and
 * moves focus to it. The tab's title says so too, for a person in another tab. Approvals
 * come first; a tool's question waiting for an answer is announced the same way.
 */
export function ApprovalBanner({ turns }: { turns: readonly ChatTurn[] }) {
  const approvals = useMemo(() => pendingApprovals(turns), [turns]);
  const questions = useMemo(() => pendingInputs(turns), [turns]);
  const asking = approvals.length === 0;
  const waiting = asking ? questions : approvals;
  const count = waiting.length;

  const mark = TITLE_MARKS[asking ? "input" : "approval"];
  useEffect(() => {
    if (count === 0) return;
    const title = document.title;
    if (!title.startsWith(mark)) document.title = mark + title;
    return () => {
      if (document.title.startsWith(mark)) document.title = document.title.slice(mark.length);
    };
  }, [count, mark]);

  // A notification's link (the run whose call waits, or the turn of the master's call)
  // opens the card as Review does, once per arrival at that link.
  const revealed = useRef<string | null>(null);
  useEffect(() => {
    const fromHash = () => {
      const hash = window.location.hash;
      const runId = runOfHash(hash);
      const turnId = turnOfHash(hash);
      const target = waiting.find((w) => (runId ? w.runId === runId : turnId !== null && w.runId === null && w.turnId === turnId));
      const key = target ? `${hash}|${target.callId}` : null;
      if (!target || revealed.current === key) return;
      revealed.current = key;
      reveal(target, asking ? "input" : "approval");
    };
    const arrived = () => {
      revealed.current = null;
      fromHash();
    };
    fromHash();
    window.addEventListener("hashchange", arrived);
    return () => window.removeEventListener("hashchange", arrived);
  }, [waiting, asking]);

  if (count === 0) return null;
  const first = waiting[0]!;
  return (
    <div className="mx-auto w-full max-w-3xl px-3 pb-2 sm:px-4">
      <div
        role="status"
        data-testid={asking ? "input-banner" : "approval-banner"}
        className="flex flex-wrap items-center gap-2 rounded-lg border-2 border-amber-400 bg-amber-50 px-3 py-2 text-sm text-amber-950 dark:border-amber-500/70 dark:bg-amber-950/40 dark:text-amber-100"
      >
        <AlertIcon size={16} className="shrink-0" />
        <span className="min-w-0 flex-1">
          {asking ? (
            count === 1 ? (
              <>
                {first.agent ?? "The agent"} is waiting for your answer to a question from <span className="font-mono">{first.name}</span>.
              </>
            ) : (
              <>{count} tool calls are waiting for your answers.</>
            )
          ) : count === 1 ? (
            <>
              {first.agent ?? "The agent"} is waiting for your approval to run <span className="font-mono">{first.name}</span>.
            </>
          ) : (
            <>{count} tool calls are waiting for your approval.</>
          )}
        </span>
        <button
          type="button"
          data-testid={asking ? "input-review" : "approval-review"}
          onClick={() => reveal(first, asking ? "input" : "approval")}
          className="rounded-md bg-amber-600 px-3 py-1 font-medium text-white hover:bg-amber-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-500 dark:bg-amber-500 dark:text-amber-950 dark:hover:bg-amber-400"
        >
          Review
        </button>
      </div>
    </div>
  );
}

/**
 * Opens the panels that lead to the card, then scrolls to it and focuses it (not its
 * Approve or Submit button: a stray Enter must not decide).
 */
function reveal(approval: PendingApproval, card: "approval" | "input"): void {
  announceReveal();
  for (const runId of approval.runPath) setDisclosure(`run:${runId}`, true);
  const selector = `[data-testid="${card}-card"][data-${card}-call="${CSS.escape(approval.callId)}"][data-${card}-run="${CSS.escape(approval.runId ?? "")}"]`;
  // The panels render on the next frames; look for the card until it is there (briefly).
  let tries = 0;
  const find = () => {
    const card = document.querySelector<HTMLElement>(selector);
    if (!card) revealInWindows({ turnId: approval.turnId, runPath: approval.runPath, runId: approval.runId, callId: approval.callId });
    if (card) {
      card.scrollIntoView({ block: "center", behavior: "smooth" });
      card.focus({ preventScroll: true });
    } else if (tries++ < 20) requestAnimationFrame(find);
  };
  requestAnimationFrame(find);
}
