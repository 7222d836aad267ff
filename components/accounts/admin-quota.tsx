"use client";

import { useId, useState, type FormEvent, type ReactNode } from "react";
import { ACCOUNT_ROUTES, type QuotaView } from "@/lib/contracts";
import { quotaBodyOf, quotaFormOf, quotaIssuesByField, type QuotaField, type QuotaForm } from "@/lib/budgets/quota-form";
import { post } from "./account-api";
import { INPUT_CLASS, PRIMARY_BUTTON, SECONDARY_BUTTON } from "./fields";

type Issues = Partial<Record<QuotaField, string[]>>;

const KINDS: [QuotaForm["kind"], string][] = [
  ["default", "Server default"],
  ["none", "No limit"],
  ["custom", "Its own limits"],
];

/**
 * The admin's "Edit quota" for one account: the server's default, no limit, or its own
 * daily and monthly limits (an empty box is no limit on that one). The server's schema
 * checks the figures; each refusal shows under its own box.
 */
export function AdminQuotaForm(props: { accountId: string; name: string; quota?: QuotaView; onSaved: () => void; onCancel: () => void }) {
  const [form, setForm] = useState<QuotaForm>(() => quotaFormOf(props.quota));
  const [issues, setIssues] = useState<Issues>({});
  const [pending, setPending] = useState(false);
  const set = (field: keyof QuotaForm, value: string) => setForm((f) => ({ ...f, [field]: value }));

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (pending) return;
    setPending(true);
    const result = await post<QuotaView>(ACCOUNT_ROUTES.adminQuota(props.accountId), quotaBodyOf(form));
    setPending(false);
    if (result.ok) {
      props.onSaved();
      return;
    }
    setIssues(result.issues?.length ? quotaIssuesByField(result.issues) : { form: [result.message] });
  };

  return (
    <form
      onSubmit={(e) => void submit(e)}
      noValidate
      data-testid="quota-form"
      aria-label={`Quota of ${props.name}`}
      className="space-y-3 rounded-md border border-zinc-200 p-3 dark:border-zinc-800"
    >
      <fieldset className="flex flex-wrap gap-x-4 gap-y-1">
        <legend className="mb-1 text-sm font-medium">Quota</legend>
        {KINDS.map(([kind, label]) => (
          <label key={kind} className="flex items-center gap-1.5 text-sm">
            <input
              type="radio"
              name={`quota-kind-${props.accountId}`}
              data-testid={`quota-kind-${kind}`}
              checked={form.kind === kind}
              onChange={() => set("kind", kind)}
            />
            {label}
          </label>
        ))}
      </fieldset>
      {form.kind === "custom" ? (
        <div className="grid gap-3 sm:grid-cols-2">
          <Box
            label="Daily tokens"
            issues={issues.dayTokens}
            value={form.dayTokens}
            onChange={(v) => set("dayTokens", v)}
            testId="quota-day-tokens"
          />
          <Box
            label="Daily US dollars"
            issues={issues.dayUsd}
            value={form.dayUsd}
            onChange={(v) => set("dayUsd", v)}
            testId="quota-day-usd"
          />
          <Box
            label="Monthly tokens"
            issues={issues.monthTokens}
            value={form.monthTokens}
            onChange={(v) => set("monthTokens", v)}
            testId="quota-month-tokens"
          />
          <Box
            label="Monthly US dollars"
            issues={issues.monthUsd}
            value={form.monthUsd}
            onChange={(v) => set("monthUsd", v)}
            testId="quota-month-usd"
          />
          <p className="text-xs text-zinc-600 sm:col-span-2 dark:text-zinc-400">
            Days and months are UTC. An empty box is no limit on that one; dollars count where the model&apos;s prices are known.
          </p>
        </div>
      ) : null}
      {issues.form ? <Problems messages={issues.form} /> : null}
      <div className="flex flex-wrap gap-2">
        <button type="submit" data-testid="quota-save" disabled={pending} className={PRIMARY_BUTTON}>
          Save quota
        </button>
        <button type="button" onClick={props.onCancel} className={SECONDARY_BUTTON}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function Box(props: { label: string; value: string; onChange: (v: string) => void; issues?: string[]; testId: string }) {
  const id = useId();
  const errorId = `${id}-error`;
  return (
    <div className="space-y-1.5">
      <label htmlFor={id} className="text-sm font-medium">
        {props.label}
      </label>
      <input
        id={id}
        data-testid={props.testId}
        inputMode="decimal"
        autoComplete="off"
        value={props.value}
        onChange={(e) => props.onChange(e.target.value)}
        aria-invalid={Boolean(props.issues?.length)}
        aria-describedby={props.issues?.length ? errorId : undefined}
        className={INPUT_CLASS}
      />
      {props.issues?.length ? <Problems id={errorId} messages={props.issues} /> : null}
    </div>
  );
}

function Problems({ id, messages }: { id?: string; messages: string[] }): ReactNode {
  return (
    <div id={id} role="alert" data-testid="field-error" className="space-y-0.5 text-xs text-red-700 dark:text-red-400">
      {messages.map((message, i) => (
        <p key={i}>{message}</p>
      ))}
    </div>
  );
}
