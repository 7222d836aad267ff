"use client";

import { memo } from "react";
import type { Step, ToolCall } from "@/lib/contracts";
import { Markdown } from "@/components/markdown/markdown";
import { FoldedSection } from "@/components/ui/folded-section";
import { useTurnId } from "@/components/subagents/panel-actions";
import { useCallView } from "./call-view";
import { callLeadsTo } from "./reveal-window";
import { useInWindow, WindowedList } from "./windowed-list";

/**
 * Who wrote the steps: the master, whose steps are the answer itself (large text, no
 * frame), or a subagent, whose steps are an audit trail inside its panel (smaller text).
 * The parts and their order are the same for both: reasoning (folded), words, calls.
 */
export type StepVariant = "master" | "run";

export interface StepViewProps {
  step: Step;
  index: number;
  variant: StepVariant;
  /** The run that wrote the step; null for the master. */
  ownerRunId: string | null;
  /** Its words are still streaming in. */
  streaming: boolean;
  /** Its words are shown elsewhere (a subagent's answer is its Response). */
  hideText?: boolean;
}

/** The content of one step: its reasoning folded, its words as markdown, then its calls. */
export const StepView = memo(function StepView({ step, index, variant, ownerRunId, streaming, hideText = false }: StepViewProps) {
  const turnId = useTurnId();
  const thinkingKey = ownerRunId === null ? `thinking:${turnId ?? ""}:m:${index}` : `run-thinking:${ownerRunId}:${index}`;
  return (
    <>
      {step.thinking ? <Thinking disclosureKey={thinkingKey} text={step.thinking} /> : null}
      {step.text && !hideText ? <StepText text={step.text} variant={variant} streaming={streaming && step.toolCalls.length === 0} /> : null}
      {step.toolCalls.length > 0 ? <StepCalls calls={step.toolCalls} variant={variant} ownerRunId={ownerRunId} /> : null}
    </>
  );
});

function StepText({ text, variant, streaming }: { text: string; variant: StepVariant; streaming: boolean }) {
  const inWindow = useInWindow();
  if (variant === "master") return <Markdown text={text} streaming={streaming} className="text-[15px]" />;
  return (
    <div className={`${inWindow ? "" : "offscreen-skip "}text-sm text-zinc-700 dark:text-zinc-300`} data-testid="subagent-step-text">
      <Markdown text={text} streaming={streaming} />
    </div>
  );
}

/** A call chip is about 26 px, a subagent panel's header 56: the guess for a call not yet measured. */
const CALL_ESTIMATE_PX = 32;

function StepCalls({ calls, variant, ownerRunId }: { calls: ToolCall[]; variant: StepVariant; ownerRunId: string | null }) {
  const CallView = useCallView();
  const turnId = useTurnId();
  const master = variant === "master";
  return (
    <WindowedList
      items={calls}
      itemKey={(call) => call.callId}
      estimateSize={CALL_ESTIMATE_PX}
      // The master's calls are the answer's own children (spaced by it, space-y-3).
      gap={master ? 12 : 6}
      as={master ? "fragment" : "ol"}
      windowedAs="div"
      className={master ? "min-w-0 space-y-3" : "space-y-1.5"}
      leadsTo={(call, target) => callLeadsTo(call, ownerRunId, turnId, target)}
    >
      {(call, _i, measure) =>
        master ? (
          <div className="min-w-0" {...measure}>
            <CallView call={call} ownerRunId={null} />
          </div>
        ) : (
          <li className="min-w-0" {...measure}>
            <CallView call={call} ownerRunId={ownerRunId} />
          </li>
        )
      }
    </WindowedList>
  );
}

/** An agent's reasoning, for audit only; folded by default because it is long and noisy. */
function Thinking({ disclosureKey, text }: { disclosureKey: string; text: string }) {
  return (
    <FoldedSection disclosureKey={disclosureKey} title="Thinking" testId="step-thinking">
      <p className="max-h-72 overflow-auto rounded-md border border-zinc-200 bg-zinc-50/60 px-3 py-2 text-sm break-words whitespace-pre-wrap text-zinc-600 italic dark:border-zinc-800 dark:bg-zinc-950/40 dark:text-zinc-400">
        {text}
      </p>
    </FoldedSection>
  );
}
