"use client";

import { memo, useMemo } from "react";
import type { Step, SubagentProcess } from "@/lib/contracts";
import { useHydrated } from "@/components/ui/use-hydrated";
import { parseTime } from "@/lib/format/display";
import { SteerIcon } from "@/components/subagents/status-icon";
import { useTurnId } from "@/components/subagents/panel-actions";
import { panelSequence, type SequenceEntry } from "@/lib/subagents/run-summary";
import { callLeadsTo, type RevealTarget } from "./reveal-window";
import { CallViewProvider, type CallView } from "./call-view";
import { StepView } from "./step-view";
import { WindowedList, type MeasureProps } from "./windowed-list";

/** A step is a heading, a paragraph or two and a call or two: the guess until it is measured. */
const STEP_ESTIMATE_PX = 120;

const stepLeadsTo = (step: Step, ownerRunId: string | null, turnId: string | undefined, target: RevealTarget) =>
  step.toolCalls.some((call) => callLeadsTo(call, ownerRunId, turnId, target));

export interface MasterStepsProps {
  steps: Step[];
  /** How a call is drawn (see call-view.tsx). */
  CallView: CallView;
  /** The turn is still running: its last step may be streaming. */
  live: boolean;
}

/**
 * The master's answer: its steps in order, each through the same StepView as a
 * subagent's. Short answers put their parts straight into the message (its spacing, its
 * `.markdown` children); long ones are windowed.
 */
export function MasterSteps({ steps, live, CallView }: MasterStepsProps) {
  const turnId = useTurnId();
  const last = steps.length - 1;
  return (
    <CallViewProvider value={CallView}>
      <WindowedList
        items={steps}
        itemKey={(_step, i) => i}
        estimateSize={STEP_ESTIMATE_PX}
        gap={12}
        as="fragment"
        windowedAs="div"
        className="min-w-0 space-y-3"
        leadsTo={(step, target) => stepLeadsTo(step, null, turnId, target)}
      >
        {(step, i, measure) =>
          measure ? (
            <div className="min-w-0 space-y-3" {...measure}>
              <StepView step={step} index={i} variant="master" ownerRunId={null} streaming={live && i === last} />
            </div>
          ) : (
            <StepView step={step} index={i} variant="master" ownerRunId={null} streaming={live && i === last} />
          )
        }
      </WindowedList>
    </CallViewProvider>
  );
}

export interface RunStepsProps {
  panel: SubagentProcess;
  /** How a call is drawn (see call-view.tsx). */
  CallView: CallView;
  /** The run's answer is shown as its Response: the answering step's words are not repeated. */
  answered: boolean;
}

/** A subagent's steps, numbered, with the person's steering messages where the run read them. */
export function RunSteps({ panel, answered, CallView }: RunStepsProps) {
  const turnId = useTurnId();
  const running = panel.status === "running";
  const lastIndex = panel.steps.length - 1;
  const sequence = useMemo(() => panelSequence(panel), [panel]);
  return (
    <CallViewProvider value={CallView}>
      <WindowedList
        items={sequence}
        itemKey={(entry) => (entry.kind === "steer" ? `steer-${entry.index}` : entry.index)}
        estimateSize={STEP_ESTIMATE_PX}
        gap={8}
        as="ol"
        className="space-y-2"
        testId="subagent-steps"
        leadsTo={(entry, target) => entry.kind === "step" && stepLeadsTo(panel.steps[entry.index]!, panel.runId, turnId, target)}
      >
        {(entry: SequenceEntry, _i, measure) =>
          entry.kind === "steer" ? (
            <SteerItem message={entry.steer.message} at={entry.steer.at} measure={measure} />
          ) : (
            <RunStepItem
              runId={panel.runId}
              index={entry.index}
              step={panel.steps[entry.index]!}
              hideText={answered && entry.index === lastIndex && panel.steps[entry.index]!.text === panel.response}
              streaming={running && entry.index === lastIndex}
              measure={measure}
            />
          )
        }
      </WindowedList>
    </CallViewProvider>
  );
}

/** One step of a run, framed and numbered. Memoized: finished steps skip re-rendering while the last one streams. */
const RunStepItem = memo(function RunStepItem({
  runId,
  index,
  step,
  hideText,
  streaming,
  measure,
}: {
  runId: string;
  index: number;
  step: Step;
  hideText: boolean;
  streaming: boolean;
  measure: MeasureProps | undefined;
}) {
  return (
    <li className="min-w-0 space-y-1.5 border-l-2 border-zinc-200 pl-2.5 dark:border-zinc-800" data-testid="subagent-step" {...measure}>
      <div className="text-[11px] text-zinc-500 tabular-nums dark:text-zinc-400">
        Step {index + 1}
        {hideText && !step.thinking && step.toolCalls.length === 0 ? " · answered: the response is below" : ""}
      </div>
      <StepView step={step} index={index} variant="run" ownerRunId={runId} streaming={streaming} hideText={hideText} />
    </li>
  );
});

/** A person's steering message, where the run read it. */
function SteerItem({ message, at, measure }: { message: string; at: string; measure: MeasureProps | undefined }) {
  // The reader's clock, once hydrated: the server's time zone is not theirs.
  const time = useHydrated() ? parseTime(at) : null;
  return (
    <li
      className="min-w-0 rounded-md border border-sky-200 bg-sky-50/70 px-2.5 py-1.5 dark:border-sky-900/70 dark:bg-sky-950/30"
      data-testid="subagent-steer"
      {...measure}
    >
      <div className="flex items-center gap-1.5 text-[11px] font-medium text-sky-800 dark:text-sky-300">
        <SteerIcon size={12} />
        <span>You steered</span>
        {time !== null ? (
          <time dateTime={at} className="font-normal text-sky-800 tabular-nums dark:text-sky-300">
            {new Date(time).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" })}
          </time>
        ) : null}
      </div>
      <p className="mt-0.5 text-sm break-words whitespace-pre-wrap text-zinc-800 dark:text-zinc-200" data-testid="subagent-steer-text">
        {message}
      </p>
    </li>
  );
}
