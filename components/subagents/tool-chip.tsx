"use client";

import { useId } from "react";
import type { ToolCall } from "@/lib/contracts";
import { argumentHint, prettyJson } from "@/lib/format/display";
import { ChevronRightIcon, WrenchIcon } from "@/components/ui/icons";
import { useDisclosure } from "@/components/ui/disclosure";
import { ApprovalAudit, ApprovalCard, ApprovalOutcome } from "./approval-card";
import { InputCard, InputOutcome } from "./input-card";
import { useAgentName, useTurnId } from "./panel-actions";
import { StatusIcon } from "./status-icon";
import { ToolResult } from "./tool-result";

export interface ToolCallViewProps {
  call: ToolCall;
  /** The run that made the call; null for the master agent. */
  ownerRunId: string | null;
}

/** One tool call (not a subagent's) as a compact chip that opens to its arguments and result. */
export function ToolChip({ call, ownerRunId }: ToolCallViewProps) {
  // Call ids repeat across runs and turns ("call_0"): the turn and owning run make it unique.
  const turnId = useTurnId();
  const [open, setOpen] = useDisclosure(`tool:${turnId ?? ""}:${ownerRunId ?? "m"}:${call.callId}`);
  const bodyId = useId();
  const agent = useAgentName();
  const hint = argumentHint(call.parameters);
  const { approval } = call;
  const waiting = approval?.state === "pending";
  const inputs = call.inputs ?? [];
  const asking = inputs.some((input) => input.state === "pending");
  return (
    <div data-testid="tool-call" data-call-id={call.callId} data-status={call.status} data-approval={approval?.state} className="min-w-0">
      <button
        type="button"
        aria-expanded={open}
        aria-controls={bodyId}
        onClick={() => setOpen(!open)}
        className="inline-flex max-w-full min-w-0 items-center gap-1.5 rounded-md border border-zinc-200 bg-zinc-50 px-2 py-1 text-xs text-zinc-700 hover:border-zinc-300 hover:bg-zinc-100 dark:border-zinc-800 dark:bg-zinc-900 dark:text-zinc-300 dark:hover:border-zinc-700 dark:hover:bg-zinc-800"
      >
        <ChevronRightIcon size={12} className={`shrink-0 text-zinc-400 transition-transform ${open ? "rotate-90" : ""}`} />
        <WrenchIcon size={12} className="shrink-0 text-zinc-400" />
        <span className="shrink-0 font-mono font-medium">{call.name}</span>
        {hint ? <span className="min-w-0 truncate text-zinc-500 dark:text-zinc-400">{hint}</span> : null}
        {waiting ? (
          <span className="shrink-0 rounded bg-amber-100 px-1.5 text-[11px] font-medium text-amber-900 dark:bg-amber-900/60 dark:text-amber-200">
            needs approval
          </span>
        ) : null}
        {asking ? (
          <span className="shrink-0 rounded bg-sky-100 px-1.5 text-[11px] font-medium text-sky-900 dark:bg-sky-900/60 dark:text-sky-200">
            needs an answer
          </span>
        ) : null}
        <StatusIcon status={call.status} size={13} />
      </button>
      {/* A waiting call is never folded away: the card is the point of the page until decided. */}
      {waiting ? (
        <ApprovalCard call={{ ...call, approval }} ownerRunId={ownerRunId} agent={agent} />
      ) : approval ? (
        <ApprovalOutcome approval={approval} />
      ) : null}
      {/* Like an approval, a question is never folded away while it waits; how each ended stays in view. */}
      {inputs.map((input, index) =>
        input.state === "pending" ? (
          <InputCard key={index} call={call} input={input} ownerRunId={ownerRunId} agent={agent} />
        ) : (
          <InputOutcome key={index} input={input} />
        ),
      )}
      <div id={bodyId} hidden={!open}>
        {open ? (
          <div className="mt-1.5 space-y-2 rounded-md border border-zinc-200 bg-zinc-50/60 p-2.5 dark:border-zinc-800 dark:bg-zinc-900/60">
            {approval && !waiting ? (
              <Section title="Approval">
                <ApprovalAudit approval={approval} />
              </Section>
            ) : null}
            <Section title="Parameters">
              <pre className="max-h-60 overflow-auto rounded-md border border-zinc-200 bg-white p-2 font-mono text-xs leading-relaxed break-words whitespace-pre-wrap text-zinc-800 dark:border-zinc-800 dark:bg-zinc-950 dark:text-zinc-200">
                {prettyJson(call.parameters)}
              </pre>
            </Section>
            <Section title="Result">
              {call.status === "running" ? (
                <p className="text-xs text-zinc-500 italic dark:text-zinc-400">
                  {waiting ? "Waiting for approval…" : asking ? "Waiting for an answer…" : "Waiting for the result…"}
                </p>
              ) : (
                <ToolResult callId={call.callId} ownerRunId={ownerRunId} response={call.response} responseSize={call.responseSize} />
              )}
            </Section>
          </div>
        ) : null}
      </div>
    </div>
  );
}

function Section({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <div>
      <div className="mb-1 text-[11px] font-semibold tracking-wide text-zinc-500 uppercase dark:text-zinc-400">{title}</div>
      {children}
    </div>
  );
}
