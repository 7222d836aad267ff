"use client";

import { DefinitionVersion } from "@/components/agents/definition-version";
import { memo, useDeferredValue, useId, useMemo, useRef, type ReactNode } from "react";
import type { SubagentProcess, ToolCall } from "@/lib/contracts";
import { endReasonLabel, endReasonShort, formatTokens, totalTokens, truncate } from "@/lib/format/display";
import { Markdown } from "@/components/markdown/markdown";
import { ChevronRightIcon } from "@/components/ui/icons";
import { useDisclosure } from "@/components/ui/disclosure";
import { FoldedSection } from "@/components/ui/folded-section";
import { waitsForAnswer, waitsForApproval } from "@/lib/turn/approvals";
import { liveStatus, outcomeLine, runCounts, runOutcome, type RunOutcome } from "@/lib/subagents/run-summary";
import { spendAgainst, spendOf } from "@/lib/budgets/spend";
import { RunSteps } from "@/components/steps/step-list";
import { Elapsed } from "./elapsed";
import { AgentNameProvider } from "./panel-actions";
import { PanelStats } from "./panel-stats";
import { ContextLedger } from "@/components/inspector/inspect-context";
import { ReturnedToParent } from "./returned-to-parent";
import { ControlStrip, HeaderActions, useRunControls } from "./run-controls";
import { StatusIcon } from "./status-icon";
import { RetryControls, canRetry } from "./retry-controls";
import { RetryLineage, panelAnchor } from "./retry-links";
import { ToolChip, type ToolCallViewProps } from "./tool-chip";
import { InputCard, InputOutcome } from "./input-card";

export interface SubagentExecutionProps {
  panel: SubagentProcess;
  /** The parent's tool call that spawned this run: its result is what the parent model saw. */
  call?: ToolCall;
}

/**
 * One tool call as a compact chip that opens to its arguments and result. A call that
 * spawned a subagent is shown as that subagent's panel instead: the panel is the call.
 * It lives here, next to the panel, because the two nest: a panel lists its calls, and a
 * call may be a panel.
 */
export const ToolCallView = memo(function ToolCallView({ call, ownerRunId }: ToolCallViewProps) {
  if (call.subagent) return <SubagentExecution panel={call.subagent} call={call} />;
  return <ToolChip call={call} ownerRunId={ownerRunId} />;
});

/**
 * The `<SubagentExecution>` panel: one subagent run, collapsed to a single line,
 * expanded to everything it did, step by step. Memoized on the process: the reducer
 * copies only the path to a change, so finished panels are skipped while a sibling streams.
 */
export const SubagentExecution = memo(function SubagentExecution({ panel, call }: SubagentExecutionProps) {
  const [open, setOpen] = useDisclosure(`run:${panel.runId}`);
  const bodyId = useId();
  const toggle = useRef<HTMLButtonElement>(null);
  const running = panel.status === "running";
  const outcome = runOutcome(panel);
  const tokens = totalTokens(panel.stats);
  // Something inside waits for a person: said on the header, so a folded panel cannot hide it.
  const waiting = useMemo(() => waitsForApproval(panel), [panel]);
  // A remote agent's question is asked by the call that spawned it, not by a call inside.
  const asking = useMemo(() => waitsForAnswer(panel) || (call?.inputs?.some((input) => input.state === "pending") ?? false), [panel, call]);
  const counts = useMemo(() => runCounts(panel), [panel]);
  const line = useMemo(() => (running ? liveStatus(panel) : outcomeLine(panel)), [panel, running]);
  const controls = useRunControls(panel);

  return (
    <section
      id={panelAnchor(panel.runId)}
      data-testid="subagent-panel"
      data-status={panel.status}
      data-outcome={outcome}
      data-run-id={panel.runId}
      data-depth={panel.depth}
      data-waiting-approval={waiting || undefined}
      aria-label={`Subagent ${panel.name}: ${OUTCOME_WORDS[outcome]}`}
      className={`min-w-0 rounded-lg border bg-white shadow-xs dark:bg-zinc-900/60 ${waiting ? "border-amber-400 dark:border-amber-500/70" : asking ? "border-sky-400 dark:border-sky-500/70" : BORDERS[outcome]}`}
    >
      <div className="flex min-w-0 items-start">
        <button
          ref={toggle}
          type="button"
          data-testid="subagent-toggle"
          aria-expanded={open}
          aria-controls={bodyId}
          onClick={() => setOpen(!open)}
          className="flex min-w-0 flex-1 flex-col gap-0.5 rounded-lg px-3 py-2 text-left hover:bg-zinc-50 dark:hover:bg-zinc-800/50"
        >
          <span className="flex w-full min-w-0 items-center gap-2 text-sm">
            <ChevronRightIcon size={14} className={`shrink-0 text-zinc-400 transition-transform ${open ? "rotate-90" : ""}`} />
            <StatusIcon status={outcome} />
            <span className="shrink-0 font-medium text-zinc-900 dark:text-zinc-100">{panel.name}</span>
            <span className="min-w-0 flex-1 truncate text-zinc-500 dark:text-zinc-400" title={panel.task}>
              {truncate(panel.task, 140)}
            </span>
            {waiting ? (
              <span
                data-testid="approval-badge"
                className="shrink-0 rounded bg-amber-100 px-1.5 py-0.5 text-[11px] font-medium text-amber-900 dark:bg-amber-900/60 dark:text-amber-200"
              >
                needs approval
              </span>
            ) : null}
            {asking ? (
              <span
                data-testid="input-badge"
                className="shrink-0 rounded bg-sky-100 px-1.5 py-0.5 text-[11px] font-medium text-sky-900 dark:bg-sky-900/60 dark:text-sky-200"
              >
                needs an answer
              </span>
            ) : null}
            {panel.status === "error" ? (
              <span data-testid="outcome-badge" className={`shrink-0 rounded px-1.5 py-0.5 text-[11px] font-medium ${BADGES[outcome]}`}>
                {outcome === "stopped"
                  ? "stopped"
                  : outcome === "timed_out"
                    ? "timed out"
                    : panel.endReason
                      ? endReasonShort(panel.endReason)
                      : "failed"}
              </span>
            ) : null}
            <span className="flex shrink-0 items-center gap-2 text-xs text-zinc-500 tabular-nums dark:text-zinc-400">
              {panel.model ? (
                <span data-testid="subagent-model" className="hidden max-w-44 truncate md:inline" title={`Model: ${panel.model}`}>
                  {panel.model}
                </span>
              ) : null}
              <span data-testid="subagent-elapsed">
                <Elapsed
                  startedAt={panel.startedAt}
                  endedAt={panel.endedAt}
                  runtimeMs={panel.stats?.runtimeMs}
                  running={running}
                  fixedWidth
                />
              </span>
              {panel.budget ? (
                <span data-testid="subagent-budget" title="Spent against its budget, its subagents included">
                  {spendAgainst(spendOf(panel.stats), panel.budget)}
                </span>
              ) : tokens > 0 ? (
                <span className="hidden sm:inline" title={`${tokens.toLocaleString()} tokens`}>
                  {formatTokens(tokens)} tok
                </span>
              ) : null}
            </span>
          </span>
          <span className="flex w-full min-w-0 items-center gap-2 pl-[22px] text-xs text-zinc-500 dark:text-zinc-400">
            <span
              data-testid={running ? "subagent-activity" : "subagent-outcome"}
              className={`min-w-0 flex-1 truncate ${running ? "font-mono text-[11px]" : LINE_TONES[outcome]}`}
              title={line}
            >
              {line}
            </span>
            {counts.toolCalls + counts.subagents > 0 ? (
              <span
                data-testid="subagent-counts"
                className="shrink-0 tabular-nums"
                title="Tool calls and subagents, including those of its own subagents"
              >
                {plural(counts.toolCalls, "tool")}
                {counts.subagents > 0 ? ` · ${plural(counts.subagents, "subagent")}` : ""}
              </span>
            ) : null}
          </span>
        </button>
        <div className="flex items-center gap-1 pt-1.5">
          {panel.definition ? <DefinitionVersion definition={panel.definition} name={panel.name} /> : null}
          <HeaderActions controls={controls} />
        </div>
      </div>
      <ControlStrip controls={controls} onEndedFocus={() => toggle.current?.focus()} />
      <RetryLineage panel={panel} />
      {call?.inputs?.length ? <RunQuestions call={call} ownerRunId={panel.parentRunId} agent={panel.name} /> : null}
      <div id={bodyId} hidden={!open} className="offscreen-skip">
        {open ? (
          <AgentNameProvider name={panel.name}>
            <PanelBody panel={panel} call={call} />
          </AgentNameProvider>
        ) : null}
      </div>
    </section>
  );
});

const OUTCOME_WORDS: Record<RunOutcome, string> = {
  running: "running",
  succeeded: "succeeded",
  failed: "failed",
  stopped: "stopped",
  timed_out: "timed out",
  out_of_budget: "out of budget",
};

const BORDERS: Record<RunOutcome, string> = {
  running: "border-sky-200 dark:border-sky-900/70",
  succeeded: "border-zinc-200 dark:border-zinc-800",
  failed: "border-red-200 dark:border-red-900/70",
  stopped: "border-zinc-400 dark:border-zinc-600",
  timed_out: "border-orange-300 dark:border-orange-900/70",
  out_of_budget: "border-amber-300 dark:border-amber-800/70",
};

const BADGES: Record<RunOutcome, string> = {
  running: "",
  succeeded: "",
  failed: "bg-red-50 text-red-700 dark:bg-red-950/60 dark:text-red-300",
  stopped: "bg-zinc-100 text-zinc-700 dark:bg-zinc-800 dark:text-zinc-200",
  timed_out: "bg-orange-50 text-orange-800 dark:bg-orange-950/60 dark:text-orange-300",
  out_of_budget: "bg-amber-50 text-amber-800 dark:bg-amber-950/60 dark:text-amber-300",
};

const LINE_TONES: Record<RunOutcome, string> = {
  running: "",
  succeeded: "text-zinc-600 dark:text-zinc-300",
  failed: "text-red-700 dark:text-red-400",
  stopped: "text-zinc-600 dark:text-zinc-300",
  timed_out: "text-orange-800 dark:text-orange-300",
  out_of_budget: "text-amber-800 dark:text-amber-300",
};

const ENDED_BOXES: Record<RunOutcome, string> = {
  running: "",
  succeeded: "",
  failed: "border-red-200 bg-red-50 text-red-800 dark:border-red-900/70 dark:bg-red-950/40 dark:text-red-300",
  stopped: "border-zinc-200 bg-zinc-50 text-zinc-700 dark:border-zinc-700 dark:bg-zinc-800/40 dark:text-zinc-200",
  timed_out: "border-orange-200 bg-orange-50 text-orange-900 dark:border-orange-900/70 dark:bg-orange-950/40 dark:text-orange-200",
  out_of_budget: "border-amber-200 bg-amber-50 text-amber-900 dark:border-amber-800/70 dark:bg-amber-950/40 dark:text-amber-200",
};

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function PanelBody({ panel, call }: SubagentExecutionProps) {
  const running = panel.status === "running";
  // The end of a run swaps its streamed words for the Response: thousands of new nodes for
  // a long answer, one long task when built at once. Deferred, React builds them in slices
  // that a keystroke or a frame can interrupt, then swaps both in one commit. A panel
  // mounted already answered (a reload) shows its Response at once.
  const answered = useDeferredValue(panel.status === "success");
  const outcome = runOutcome(panel);
  const returned = call && call.status !== "running" ? call : null;
  const hasSteps = panel.steps.length + (panel.steering?.length ?? 0) > 0;

  return (
    <div className="space-y-3 border-t border-zinc-200 px-3 pt-3 pb-3 dark:border-zinc-800">
      <Block title="Task">
        <p className="text-sm break-words whitespace-pre-wrap text-zinc-800 dark:text-zinc-200">{panel.task}</p>
      </Block>

      {hasSteps ? (
        <Block title={`Steps (${panel.steps.length})`}>
          <RunSteps panel={panel} answered={answered} CallView={ToolCallView} />
        </Block>
      ) : running ? (
        <p className="text-xs text-zinc-500 italic dark:text-zinc-400">Waiting for its first step…</p>
      ) : null}

      {answered ? <Response panel={panel} /> : null}

      {panel.status === "error" ? (
        <div
          role={outcome === "failed" ? "alert" : undefined}
          data-testid="run-ended"
          data-outcome={outcome}
          className={`rounded-md border px-3 py-2 text-sm ${ENDED_BOXES[outcome]}`}
        >
          <div className="text-[11px] font-semibold tracking-wide uppercase">
            {panel.endReason ? endReasonLabel(panel.endReason) : "Failed"}
          </div>
          {panel.error ? <p className="mt-0.5 break-words whitespace-pre-wrap">{panel.error}</p> : null}
        </div>
      ) : null}

      {returned ? <ReturnedToParent call={returned} panel={panel} /> : null}

      <PanelStats stats={panel.stats} startedAt={panel.startedAt} endedAt={panel.endedAt} running={running} model={panel.model} />
      <ContextLedger process={panel} returned={returned ?? undefined} />

      {panel.status === "error" && canRetry(panel.endReason) ? (
        <RetryControls runId={panel.runId} name={panel.name} task={panel.task} />
      ) : null}
    </div>
  );
}

/** The final answer alone: what was condensed and returned to the parent. */
function Response({ panel }: { panel: SubagentProcess }) {
  return (
    <FoldedSection disclosureKey={`run-response:${panel.runId}`} title="Response" defaultOpen testId="subagent-response">
      {panel.response ? (
        <div className="offscreen-skip rounded-md border border-zinc-200 bg-zinc-50/60 px-3 py-2 text-sm dark:border-zinc-800 dark:bg-zinc-950/40">
          <Markdown text={panel.response} />
        </div>
      ) : (
        <p className="text-xs text-zinc-500 italic dark:text-zinc-400">No response.</p>
      )}
    </FoldedSection>
  );
}

function Block({ title, children }: { title: string; children: ReactNode }) {
  return (
    <div className="min-w-0">
      <div className="mb-1 text-[11px] font-semibold tracking-wide text-zinc-500 uppercase dark:text-zinc-400">{title}</div>
      {children}
    </div>
  );
}

/**
 * The questions a run itself asked its person (a remote A2A agent's `input-required`),
 * held on the call that spawned it: never folded away while one waits, like an approval.
 */
function RunQuestions({ call, ownerRunId, agent }: { call: ToolCall; ownerRunId: string | null; agent: string }) {
  return (
    <div data-testid="run-questions" className="px-3 pb-2">
      {(call.inputs ?? []).map((input, index) =>
        input.state === "pending" ? (
          <InputCard key={index} call={call} input={input} ownerRunId={ownerRunId} agent={agent} />
        ) : (
          <InputOutcome key={index} input={input} />
        ),
      )}
    </div>
  );
}
