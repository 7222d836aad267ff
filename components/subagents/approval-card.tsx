"use client";

import { useId, useMemo, useState, type FormEvent } from "react";
import { MAX_DENY_REASON_CHARS, type Approval, type ToolCall } from "@/lib/contracts";
import { ActionError } from "@/components/ui/action-error";
import { prettyJson } from "@/lib/format/display";
import { approvalFileNames, isUnseen, nameParts, nameWarnings, visibleMarker, withUnseenVisible } from "@/lib/tools/suspicious-name";
import { AlertIcon } from "@/components/ui/icons";
import { useAction } from "@/components/ui/use-action";
import { useHydrated } from "@/components/ui/use-hydrated";
import { DiffView } from "./diff-view";
import { usePanelActions } from "./panel-actions";
import { usePersonName } from "@/components/members/people-context";

export interface ApprovalCardProps {
  call: ToolCall & { approval: Approval };
  /** The run that made the call; null for the master agent. */
  ownerRunId: string | null;
  /** Who asked: the subagent's name, or null for the master agent. */
  agent: string | null;
}

/** "12:01" in the reader's own clock. */
export function clockTime(iso: string | undefined): string {
  if (!iso) return "";
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? "" : date.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
}

/** The reader's clock once the page is hydrated; no time before (the server's zone is not the reader's). */
export function useClock(): (iso: string | undefined) => string {
  return useHydrated() ? clockTime : noTime;
}
const noTime = () => "";

/** One line saying how an approval ended, for the chip and the audit; `clock` says when (empty: not said). */
export function approvalOutcome(approval: Approval, clock: (iso: string | undefined) => string = clockTime): string {
  const at = clock(approval.decidedAt);
  switch (approval.state) {
    case "pending":
      return "Waiting for approval";
    case "approved":
      return at ? `Approved at ${at}` : "Approved";
    case "denied":
      return approval.denyReason ? `Denied: ${approval.denyReason}` : at ? `Denied at ${at}` : "Denied";
    case "expired":
      return `Expired${approval.note ? `: ${approval.note}` : ""}`;
    case "cancelled":
      return `Ended unanswered${approval.note ? `: ${approval.note}` : ""}`;
  }
}

/**
 * A call waiting for a person: what would run (tool, parameters, the diff of an edit),
 * who asked and in their own words why, and Approve / Deny / Deny with a reason. Every
 * tab of the owner shows it; the first decision wins and every tab then shows the outcome.
 */
export function ApprovalCard({ call, ownerRunId, agent }: ApprovalCardProps) {
  const actions = usePanelActions();
  const { pending: sending, error, run } = useAction();
  const [withReason, setWithReason] = useState(false);
  const [reason, setReason] = useState("");
  const titleId = useId();
  const reasonId = useId();
  const { approval } = call;
  const shownParameters = useMemo(() => prettyJson(call.parameters).split("\n").map(withUnseenVisible).join("\n"), [call.parameters]);
  const who = agent ?? "The agent";

  const decide = (decision: "approve" | "deny", text?: string) => {
    const send = actions?.decide;
    if (send) void run(() => send(call.callId, ownerRunId, decision, text), { verb: decision });
  };
  const sendDenial = (e: FormEvent) => {
    e.preventDefault();
    const text = reason.trim();
    decide("deny", text || undefined);
  };

  return (
    <section
      role="group"
      tabIndex={-1}
      aria-labelledby={titleId}
      data-testid="approval-card"
      data-approval-call={call.callId}
      data-approval-run={ownerRunId ?? ""}
      className="mt-1.5 space-y-2.5 rounded-lg border-2 border-amber-400 focus:outline-2 focus:outline-offset-2 focus:outline-sky-500 bg-amber-50 p-3 text-sm dark:border-amber-500/70 dark:bg-amber-950/30"
    >
      <h3 id={titleId} className="flex items-center gap-1.5 font-medium text-amber-900 dark:text-amber-200">
        <AlertIcon size={15} className="shrink-0" />
        <span className="min-w-0">
          {who} asks to run <span className="font-mono">{call.name}</span>
        </span>
      </h3>
      {approval.reason ? (
        <div>
          <div className="mb-0.5 text-[11px] font-semibold tracking-wide text-amber-800 uppercase dark:text-amber-300">Why</div>
          <p
            data-testid="approval-reason"
            className="max-h-32 overflow-auto break-words whitespace-pre-wrap text-zinc-800 dark:text-zinc-200"
          >
            {approval.reason}
          </p>
        </div>
      ) : null}
      <ApprovalFiles parameters={call.parameters} preview={approval.preview} />
      {approval.preview ? (
        <div>
          <div className="mb-0.5 text-[11px] font-semibold tracking-wide text-amber-800 uppercase dark:text-amber-300">Change</div>
          <DiffView diff={approval.preview} />
        </div>
      ) : null}
      <details>
        <summary className="cursor-pointer text-xs text-zinc-600 dark:text-zinc-400">Parameters</summary>
        <pre className="mt-1 max-h-48 overflow-auto rounded-md border border-zinc-200 bg-white p-2 font-mono text-xs break-words whitespace-pre-wrap text-zinc-800 dark:border-zinc-800 dark:bg-zinc-950 dark:text-zinc-200">
          {shownParameters}
        </pre>
      </details>
      {actions?.decide ? (
        withReason ? (
          <form
            onSubmit={sendDenial}
            className="space-y-2"
            onKeyDown={(e) => {
              if (e.key !== "Escape") return;
              e.preventDefault();
              setWithReason(false);
            }}
          >
            <label htmlFor={reasonId} className="block text-xs font-medium text-zinc-700 dark:text-zinc-300">
              Reason for {who} (it reads this)
            </label>
            <textarea
              id={reasonId}
              data-testid="approval-deny-reason"
              value={reason}
              onChange={(e) => setReason(e.target.value)}
              maxLength={MAX_DENY_REASON_CHARS}
              rows={2}
              autoFocus
              className="block w-full rounded-md border border-zinc-300 bg-white px-2.5 py-1.5 text-sm placeholder:text-zinc-400 focus:border-sky-500 focus:outline-none dark:border-zinc-700 dark:bg-zinc-950"
              placeholder="e.g. Keep the British spelling"
            />
            <div className="flex flex-wrap gap-2">
              <button type="submit" data-testid="approval-deny-send" disabled={sending || !reason.trim()} className={DENY}>
                {sending ? "Sending…" : "Deny with this reason"}
              </button>
              <button type="button" onClick={() => setWithReason(false)} className={QUIET}>
                Back
              </button>
            </div>
          </form>
        ) : (
          <div className="flex flex-wrap gap-2">
            <button type="button" data-testid="approval-approve" disabled={sending} onClick={() => decide("approve")} className={APPROVE}>
              Approve
            </button>
            <button type="button" data-testid="approval-deny" disabled={sending} onClick={() => decide("deny")} className={DENY}>
              Deny
            </button>
            <button
              type="button"
              data-testid="approval-deny-with-reason"
              disabled={sending}
              onClick={() => setWithReason(true)}
              className={QUIET}
            >
              Deny with reason…
            </button>
          </div>
        )
      ) : null}
      <ActionError error={error} />
    </section>
  );
}

/** A file name with each suspicious character marked: an unseen one written out as `⟨U+202E⟩`. */
function ShownName({ name }: { name: string }) {
  return (
    <span className="font-mono break-all">
      {nameParts(name).map((part, i) =>
        part.warning ? (
          <mark
            key={i}
            title={part.warning.message}
            className="rounded-sm bg-red-200 px-0.5 text-red-950 dark:bg-red-900 dark:text-red-100"
          >
            {isUnseen(part.warning) ? visibleMarker(part.text) : part.text}
          </mark>
        ) : (
          <span key={i}>{part.text}</span>
        ),
      )}
    </span>
  );
}

/**
 * The file a call would write, as it really is named: a name can be made to read as
 * another (a right-to-left override, an invisible character, a Cyrillic letter among Latin
 * ones), so each such character is marked and named in a warning.
 */
function ApprovalFiles({ parameters, preview }: { parameters: string; preview: string | undefined }) {
  const names = useMemo(() => approvalFileNames(parameters, preview), [parameters, preview]);
  // One list for all names: a character in both is named once.
  const warnings = useMemo(() => nameWarnings(names.join(" ")), [names]);
  if (names.length === 0) return null;
  return (
    <div>
      <div className="mb-0.5 text-[11px] font-semibold tracking-wide text-amber-800 uppercase dark:text-amber-300">
        {names.length === 1 ? "File" : "Files"}
      </div>
      <ul data-testid="approval-files" className="space-y-0.5 text-zinc-800 dark:text-zinc-200">
        {names.map((name) => (
          <li key={name}>
            <ShownName name={name} />
          </li>
        ))}
      </ul>
      {warnings.length ? (
        <div
          role="alert"
          data-testid="approval-name-warning"
          className="mt-1.5 rounded-md border border-red-300 bg-red-50 p-2 text-xs text-red-900 dark:border-red-800 dark:bg-red-950/50 dark:text-red-200"
        >
          <p className="font-semibold">This file name can mislead: check which file it really is.</p>
          <ul className="mt-0.5 list-disc pl-4">
            {warnings.map((w) => (
              <li key={w.codepoint} data-codepoint={w.codepoint}>
                {w.message}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </div>
  );
}

/** How a decided approval ended, under its chip: always visible, so the audit needs no click. */
export function ApprovalOutcome({ approval }: { approval: Approval }) {
  const clock = useClock();
  const decider = usePersonName(approval.decidedBy);
  const tone =
    approval.state === "approved"
      ? "text-emerald-700 dark:text-emerald-400"
      : approval.state === "denied"
        ? "text-red-700 dark:text-red-400"
        : "text-zinc-600 dark:text-zinc-400";
  return (
    <p data-testid="approval-outcome" data-state={approval.state} className={`mt-1 text-xs break-words ${tone}`}>
      {approvalOutcome(approval, clock)}
      {decider ? <span data-testid="approval-decider"> · by {decider}</span> : null}
    </p>
  );
}

/** The audit record of a decided approval, in the opened chip: why, the diff, who decided and when. */
export function ApprovalAudit({ approval }: { approval: Approval }) {
  const clock = useClock();
  const decider = usePersonName(approval.decidedBy);
  const asked = clock(approval.requestedAt);
  return (
    <div className="space-y-1.5 text-xs text-zinc-700 dark:text-zinc-300" data-testid="approval-audit">
      <p>
        {approvalOutcome(approval, clock)}
        {approval.decidedBy ? (
          <span className="text-zinc-500 dark:text-zinc-400"> · by {decider ?? `identity ${approval.decidedBy.slice(0, 12)}`}</span>
        ) : null}
        {asked ? <span className="text-zinc-500 dark:text-zinc-400"> · asked at {asked}</span> : null}
      </p>
      {approval.reason ? <p className="break-words whitespace-pre-wrap italic">“{approval.reason}”</p> : null}
      {approval.preview ? <DiffView diff={approval.preview} /> : null}
    </div>
  );
}

const BUTTON =
  "rounded-md px-3 py-1.5 text-sm font-medium disabled:opacity-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-500";
const APPROVE = `${BUTTON} bg-emerald-700 text-white hover:bg-emerald-800 dark:bg-emerald-600 dark:hover:bg-emerald-500`;
const DENY = `${BUTTON} bg-red-600 text-white hover:bg-red-700`;
const QUIET = `${BUTTON} border border-zinc-300 text-zinc-700 hover:bg-zinc-100 dark:border-zinc-700 dark:text-zinc-300 dark:hover:bg-zinc-800`;
