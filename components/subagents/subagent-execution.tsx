"use client";

import { memo, useId, useMemo, type ReactNode } from "react";
import type { Step, SubagentProcess, ToolCall } from "@/lib/contracts";
import { Markdown } from "@/components/markdown/markdown";
import { ChevronRightIcon } from "@/components/ui/icons";
import { useDisclosure } from "@/components/ui/disclosure";
import { FoldedSection } from "@/components/ui/folded-section";
import { waitsForApproval } from "@/lib/turn/approvals";
import { Elapsed } from "./elapsed";
import { endReasonLabel, endReasonShort, formatTokens, totalTokens, truncate } from "./format";
import { AgentNameProvider } from "./panel-actions";
import { PanelStats } from "./panel-stats";
import { StatusIcon } from "./status-icon";
import { RetryControls, canRetry } from "./retry-controls";
import { RetryLineage, panelAnchor } from "./retry-links";
import { SubagentControls } from "./subagent-controls";
import { ToolCallView } from "./tool-call-view";
import { ToolResult } from "./tool-result";

export interface SubagentExecutionProps {
  panel: SubagentProcess;
  /** The parent's tool call that spawned this run: its result is what the parent model saw. */
  call?: ToolCall;
}

/**
 * Seed 001's `<SubagentExecution>` panel: one subagent run, collapsed to a single line,
 * expanded to everything it did, step by step. Memoized on the process: the reducer
 * copies only the path to a change, so finished panels are skipped while a sibling streams.
 */
export const SubagentExecution = memo(function SubagentExecution({ panel, call }: SubagentExecutionProps) {
  const [open, setOpen] = useDisclosure(`run:${panel.runId}`);
  const bodyId = useId();
  const running = panel.status === "running";
  const tokens = totalTokens(panel.stats);
  // Something inside waits for a person: said on the header, so a folded panel cannot hide it.
  const waiting = useMemo(() => waitsForApproval(panel), [panel]);

  return (
    <section
      id={panelAnchor(panel.runId)}
      data-testid="subagent-panel"
      data-status={panel.status}
      data-run-id={panel.runId}
      data-depth={panel.depth}
      data-waiting-approval={waiting || undefined}
      aria-label={`Subagent ${panel.name}`}
      className={`min-w-0 rounded-lg border bg-white shadow-xs dark:bg-zinc-900/60 ${
        panel.status === "error"
          ? "border-red-200 dark:border-red-900/70"
          : waiting
            ? "border-amber-400 dark:border-amber-500/70"
            : running
            ? "border-sky-200 dark:border-sky-900/70"
            : "border-zinc-200 dark:border-zinc-800"
      }`}
    >
      <button
        type="button"
        data-testid="subagent-toggle"
        aria-expanded={open}
        aria-controls={bodyId}
        onClick={() => setOpen(!open)}
        className="flex w-full min-w-0 items-center gap-2 rounded-lg px-3 py-2 text-left text-sm hover:bg-zinc-50 dark:hover:bg-zinc-800/50"
      >
        <ChevronRightIcon size={14} className={`shrink-0 text-zinc-400 transition-transform ${open ? "rotate-90" : ""}`} />
        <StatusIcon status={panel.status} />
        <span className="shrink-0 font-medium text-zinc-900 dark:text-zinc-100">{panel.name}</span>
        <span className="min-w-0 flex-1 truncate text-zinc-500 dark:text-zinc-400" title={panel.task}>
          {truncate(panel.task, 140)}
        </span>
        {waiting ? (
          <span data-testid="approval-badge" className="shrink-0 rounded bg-amber-100 px-1.5 py-0.5 text-[11px] font-medium text-amber-900 dark:bg-amber-900/60 dark:text-amber-200">
            needs approval
          </span>
        ) : null}
        {panel.status === "error" ? (
          <span className="shrink-0 rounded bg-red-50 px-1.5 py-0.5 text-[11px] font-medium text-red-700 dark:bg-red-950/60 dark:text-red-300">
            {panel.endReason ? endReasonShort(panel.endReason) : "failed"}
          </span>
        ) : null}
        <span className="flex shrink-0 items-center gap-2 text-xs text-zinc-500 tabular-nums dark:text-zinc-400">
          {panel.model ? (
            <span data-testid="subagent-model" className="hidden max-w-44 truncate md:inline" title={`Model: ${panel.model}`}>
              {panel.model}
            </span>
          ) : null}
          <Elapsed startedAt={panel.startedAt} endedAt={panel.endedAt} runtimeMs={panel.stats?.runtimeMs} running={running} fixedWidth />
          {tokens > 0 ? (
            <span className="hidden sm:inline" title={`${tokens.toLocaleString()} tokens`}>
              {formatTokens(tokens)} tok
            </span>
          ) : null}
        </span>
      </button>
      <RetryLineage panel={panel} />
      <div id={bodyId} hidden={!open}>
        {open ? (
          <AgentNameProvider name={panel.name}>
            <PanelBody panel={panel} call={call} />
          </AgentNameProvider>
        ) : null}
      </div>
    </section>
  );
});

function PanelBody({ panel, call }: SubagentExecutionProps) {
  const running = panel.status === "running";
  const answered = panel.status === "success";
  const returned = call && call.status !== "running" && call.response !== panel.response ? call : null;
  const lastIndex = panel.steps.length - 1;

  return (
    <div className="space-y-3 border-t border-zinc-200 px-3 pt-3 pb-3 dark:border-zinc-800">
      <Block title="Task">
        <p className="text-sm break-words whitespace-pre-wrap text-zinc-800 dark:text-zinc-200">{panel.task}</p>
      </Block>

      {panel.steps.length > 0 ? (
        <Block title={`Steps (${panel.steps.length})`}>
          <ol className="space-y-2" data-testid="subagent-steps">
            {panel.steps.map((step, i) => (
              <StepItem
                key={i}
                runId={panel.runId}
                index={i}
                step={step}
                // The answering step's words are the response below; not shown twice.
                hideText={answered && i === lastIndex && step.text === panel.response}
                streaming={running && i === lastIndex}
              />
            ))}
          </ol>
        </Block>
      ) : running ? (
        <p className="text-xs text-zinc-500 italic dark:text-zinc-400">Waiting for its first step…</p>
      ) : null}

      {answered ? <Response panel={panel} /> : null}

      {panel.status === "error" || (panel.endReason && panel.endReason !== "completed") ? (
        <div role="alert" className="rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-800 dark:border-red-900/70 dark:bg-red-950/40 dark:text-red-300">
          <div className="text-[11px] font-semibold tracking-wide uppercase">{panel.endReason ? endReasonLabel(panel.endReason) : "Failed"}</div>
          {panel.error ? <p className="mt-0.5 break-words whitespace-pre-wrap">{panel.error}</p> : null}
        </div>
      ) : null}

      {returned ? (
        <Block title="Returned to parent">
          <ToolResult
            callId={returned.callId}
            ownerRunId={panel.parentRunId}
            response={returned.response}
            responseSize={returned.responseSize}
          />
        </Block>
      ) : null}

      <PanelStats stats={panel.stats} startedAt={panel.startedAt} endedAt={panel.endedAt} running={running} model={panel.model} />

      {running ? <SubagentControls runId={panel.runId} name={panel.name} /> : null}
      {panel.status === "error" && canRetry(panel.endReason) ? <RetryControls runId={panel.runId} name={panel.name} task={panel.task} /> : null}
    </div>
  );
}

/** The final answer alone: what was condensed and returned to the parent. */
function Response({ panel }: { panel: SubagentProcess }) {
  return (
    <FoldedSection disclosureKey={`run-response:${panel.runId}`} title="Response" defaultOpen testId="subagent-response">
      {panel.response ? (
        <div className="rounded-md border border-zinc-200 bg-zinc-50/60 px-3 py-2 text-sm dark:border-zinc-800 dark:bg-zinc-950/40">
          <Markdown text={panel.response} />
        </div>
      ) : (
        <p className="text-xs text-zinc-500 italic dark:text-zinc-400">No response.</p>
      )}
    </FoldedSection>
  );
}

/** One step of a run: its reasoning (folded), its words, then the calls it made. */
const StepItem = memo(function StepItem({
  runId,
  index,
  step,
  hideText,
  streaming,
}: {
  runId: string;
  index: number;
  step: Step;
  hideText: boolean;
  streaming: boolean;
}) {
  return (
    <li className="min-w-0 space-y-1.5 border-l-2 border-zinc-200 pl-2.5 dark:border-zinc-800" data-testid="subagent-step">
      <div className="text-[11px] text-zinc-400 tabular-nums dark:text-zinc-500">
        Step {index + 1}
        {hideText && !step.thinking && step.toolCalls.length === 0 ? " · answered: the response is below" : ""}
      </div>
      {step.thinking ? <Thinking runId={runId} step={index} text={step.thinking} /> : null}
      {step.text && !hideText ? (
        <div className="text-sm text-zinc-700 dark:text-zinc-300" data-testid="subagent-step-text">
          <Markdown text={step.text} streaming={streaming && step.toolCalls.length === 0} />
        </div>
      ) : null}
      {step.toolCalls.length > 0 ? (
        <ol className="space-y-1.5">
          {step.toolCalls.map((c) => (
            <li key={c.callId} className="min-w-0">
              <ToolCallView call={c} ownerRunId={runId} />
            </li>
          ))}
        </ol>
      ) : null}
    </li>
  );
});

/** The run's reasoning, for audit only; folded by default because it is long and noisy. */
function Thinking({ runId, step, text }: { runId: string; step: number; text: string }) {
  return (
    <FoldedSection disclosureKey={`run-thinking:${runId}:${step}`} title="Thinking">
      <p className="max-h-72 overflow-auto rounded-md border border-zinc-200 bg-zinc-50/60 px-3 py-2 text-sm break-words whitespace-pre-wrap text-zinc-600 italic dark:border-zinc-800 dark:bg-zinc-950/40 dark:text-zinc-400">
        {text}
      </p>
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
