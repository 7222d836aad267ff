"use client";

import { usePersonName } from "@/components/members/people-context";
import { useId, useMemo, useState, type FormEvent } from "react";
import type { InputRequest, ToolCall } from "@/lib/contracts";
import { answerOfDraft, draftFields, initialDraft, inputOutcome, type Draft, type DraftField } from "@/lib/subagents/input-draft";
import { ActionError } from "@/components/ui/action-error";
import { SpinnerIcon } from "@/components/ui/icons";
import { useAction } from "@/components/ui/use-action";
import { useClock } from "./approval-card";
import { usePanelActions } from "./panel-actions";

export interface InputCardProps {
  call: ToolCall;
  input: InputRequest;
  /** The run that made the call; null for the master agent. */
  ownerRunId: string | null;
  /** Who asked: the subagent's name, or null for the master agent. */
  agent: string | null;
}

/**
 * A question a running tool call asks: its message and a form drawn from the question's
 * fields (a choice is a select, a yes/no a checkbox), with Submit and Decline. Every tab of
 * the owner shows it; the first answer wins and every tab then shows how it ended. The
 * draft is checked before sending with the server's rules, and a refusal from the server
 * keeps the card and says why.
 */
export function InputCard({ call, input, ownerRunId, agent }: InputCardProps) {
  const actions = usePanelActions();
  const { pending: sending, error, run } = useAction();
  const fields = useMemo(() => draftFields(input.form), [input.form]);
  const [draft, setDraft] = useState<Draft>(() => initialDraft(input.form));
  const [problem, setProblem] = useState<string | null>(null);
  const titleId = useId();
  const who = agent ?? "The agent";
  const answer = actions?.answer;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!answer) return;
    const checked = answerOfDraft(input.form, draft);
    if (!checked.ok) return setProblem(checked.error);
    setProblem(null);
    void run(() => answer(call.callId, ownerRunId, "accept", checked.content), { verb: "send the answer" });
  };
  const decline = () => {
    if (!answer) return;
    setProblem(null);
    void run(() => answer(call.callId, ownerRunId, "decline"), { verb: "decline" });
  };

  return (
    <section
      role="group"
      tabIndex={-1}
      aria-labelledby={titleId}
      data-testid="input-card"
      data-input-call={call.callId}
      data-input-run={ownerRunId ?? ""}
      className="mt-1.5 space-y-2.5 rounded-lg border-2 border-sky-400 bg-sky-50 p-3 text-sm focus:outline-2 focus:outline-offset-2 focus:outline-sky-500 dark:border-sky-500/70 dark:bg-sky-950/30"
    >
      <h3 id={titleId} className="font-medium text-sky-900 dark:text-sky-200">
        {/* A run that asks itself (a remote agent) is named; a tool's question names the tool too. */}
        {call.subagent ? (
          <>{who} asks</>
        ) : (
          <>
            {who} asks, through <span className="font-mono">{call.name}</span>
          </>
        )}
      </h3>
      <p data-testid="input-message" className="max-h-40 overflow-auto break-words whitespace-pre-wrap text-zinc-800 dark:text-zinc-200">
        {input.message}
      </p>
      <form onSubmit={submit} noValidate className="space-y-2.5" aria-busy={sending}>
        {fields.map((field) => (
          <FieldControl
            key={field.name}
            field={field}
            value={draft[field.name]}
            disabled={!answer || sending}
            onChange={(value) => setDraft((d) => ({ ...d, [field.name]: value }))}
          />
        ))}
        {answer ? (
          <div className="flex flex-wrap items-center gap-2">
            <button type="submit" data-testid="input-submit" disabled={sending} className={SUBMIT}>
              {sending ? <SpinnerIcon size={14} className="mr-1.5 inline-block align-[-2px]" /> : null}
              {sending ? "Sending…" : "Submit"}
            </button>
            <button type="button" data-testid="input-decline" disabled={sending} onClick={decline} className={QUIET}>
              Decline
            </button>
          </div>
        ) : null}
      </form>
      <ActionError error={problem ?? error} />
    </section>
  );
}

function FieldControl({
  field,
  value,
  disabled,
  onChange,
}: {
  field: DraftField;
  value: string | boolean | undefined;
  disabled: boolean;
  onChange: (value: string | boolean) => void;
}) {
  const id = useId();
  const hintId = useId();
  const described = field.description ? { "aria-describedby": hintId } : {};
  const hint = field.description ? (
    <p id={hintId} className="text-xs text-zinc-600 dark:text-zinc-400">
      {field.description}
    </p>
  ) : null;
  if (field.kind === "checkbox") {
    return (
      <div>
        <label htmlFor={id} className="inline-flex items-center gap-2 text-zinc-800 dark:text-zinc-200">
          <input
            id={id}
            type="checkbox"
            data-field={field.name}
            checked={value === true}
            disabled={disabled}
            onChange={(e) => onChange(e.target.checked)}
            className="h-4 w-4 rounded border-zinc-300 accent-sky-600 dark:border-zinc-600"
            {...described}
          />
          {field.label}
          {field.required ? <RequiredMark /> : null}
        </label>
        {hint}
      </div>
    );
  }
  const text = typeof value === "string" ? value : "";
  const common = {
    id,
    "data-field": field.name,
    value: text,
    disabled,
    required: field.required,
    "aria-required": field.required,
    className: FIELD,
    ...described,
  };
  return (
    <div className="space-y-0.5">
      <label htmlFor={id} className="block text-xs font-medium text-zinc-700 dark:text-zinc-300">
        {field.label}
        {field.required ? <RequiredMark /> : null}
      </label>
      {field.kind === "select" ? (
        <select {...common} onChange={(e) => onChange(e.target.value)}>
          <option value="">Choose…</option>
          {field.options!.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
      ) : (
        <input
          {...common}
          type={field.kind}
          onChange={(e) => onChange(e.target.value)}
          {...(field.min !== undefined ? { min: field.min } : {})}
          {...(field.max !== undefined ? { max: field.max } : {})}
          {...(field.step ? { step: field.step } : {})}
          {...(field.minLength !== undefined ? { minLength: field.minLength } : {})}
          {...(field.maxLength !== undefined ? { maxLength: field.maxLength } : {})}
        />
      )}
      {hint}
    </div>
  );
}

function RequiredMark() {
  return (
    <span aria-hidden="true" className="ml-0.5 text-red-600 dark:text-red-400" title="required">
      *
    </span>
  );
}

/** How a question ended, under its chip: always visible, so the record needs no click. */
export function InputOutcome({ input }: { input: InputRequest }) {
  const clock = useClock();
  const answerer = usePersonName(input.answeredBy);
  const tone =
    input.state === "accepted"
      ? "text-emerald-700 dark:text-emerald-400"
      : input.state === "declined"
        ? "text-red-700 dark:text-red-400"
        : "text-zinc-600 dark:text-zinc-400";
  return (
    <p data-testid="input-outcome" data-state={input.state} className={`mt-1 text-xs break-words ${tone}`}>
      <span className="text-zinc-500 dark:text-zinc-400">“{input.message}” </span>
      {inputOutcome(input, clock, answerer)}
    </p>
  );
}

const BUTTON =
  "inline-flex items-center rounded-md px-3 py-1.5 text-sm font-medium disabled:opacity-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-500";
const SUBMIT = `${BUTTON} bg-sky-700 text-white hover:bg-sky-800 dark:bg-sky-600 dark:hover:bg-sky-500`;
const QUIET = `${BUTTON} border border-zinc-300 text-zinc-700 hover:bg-zinc-100 dark:border-zinc-700 dark:text-zinc-300 dark:hover:bg-zinc-800`;
const FIELD =
  "block w-full rounded-md border border-zinc-300 bg-white px-2.5 py-1.5 text-sm focus:border-sky-500 focus:outline-none disabled:opacity-60 dark:border-zinc-700 dark:bg-zinc-950 dark:text-zinc-100";
