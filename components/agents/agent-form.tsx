"use client";

import { useEffect, useId, useMemo, useRef, useState, type FormEvent, type ReactNode } from "react";
import type { Ack, AgentSummary, DefinitionFields, ModelCatalog } from "@/lib/contracts";
import { EMPTY_FORM, fieldsOf, formOf, issuesByField, KNOWN_TOOLS, type AgentForm } from "@/lib/agents/form";
import { INPUT_CLASS, PRIMARY_BUTTON, SECONDARY_BUTTON } from "@/components/accounts/fields";

type Issues = ReturnType<typeof issuesByField>;

export interface AgentFormProps {
  /** The definition to edit; absent: a new one. */
  initial?: DefinitionFields;
  models: ModelCatalog | null;
  /** MCP tools as agents see them (`server.tool`), offered as boxes beside the built-ins. */
  mcpTools: readonly string[];
  /** Offer "shared with everyone" (an admin making a new one). */
  canShare: boolean;
  submitLabel: string;
  onSave(fields: DefinitionFields, shared: boolean): Promise<Ack<AgentSummary>>;
  onCancel(): void;
}

/**
 * A definition's fields, each with the server's issues for it underneath (the server checks
 * with the very schema SUBAGENTS_FILE is checked by; nothing is checked twice here).
 */
export function AgentFormView({ initial, models, mcpTools, canShare, submitLabel, onSave, onCancel }: AgentFormProps) {
  const offered = useMemo(() => [...KNOWN_TOOLS, ...mcpTools], [mcpTools]);
  const [form, setForm] = useState<AgentForm>(() => (initial ? formOf(initial, offered) : EMPTY_FORM));
  const [shared, setShared] = useState(false);
  const [issues, setIssues] = useState<Issues>({});
  const [busy, setBusy] = useState(false);
  const set = <K extends keyof AgentForm>(key: K, value: AgentForm[K]) => setForm((f) => ({ ...f, [key]: value }));
  const formRef = useRef<HTMLFormElement>(null);
  // After a refused save, keyboard and screen-reader users land on the first field that needs them.
  useEffect(() => {
    formRef.current?.querySelector<HTMLElement>("[aria-invalid='true']")?.focus();
  }, [issues]);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    const ack = await onSave(fieldsOf(form), shared);
    setBusy(false);
    if (ack.ok) return;
    setIssues(ack.issues?.length ? issuesByField(ack.issues) : { form: [ack.message] });
  };

  const modelKeys = models?.models ?? [];
  return (
    <form ref={formRef} onSubmit={(e) => void submit(e)} data-testid="agent-form" className="space-y-4" noValidate>
      <Row label="Name" issues={issues.name} hint="Lowercase letters, digits, - or _; the name the master calls it by.">
        {(props) => (
          <input
            {...props}
            data-testid="agent-name"
            value={form.name}
            onChange={(e) => set("name", e.target.value)}
            autoComplete="off"
            spellCheck={false}
            autoCapitalize="none"
            className={INPUT_CLASS}
          />
        )}
      </Row>
      <Row
        label="Description"
        issues={issues.description}
        hint="What the master reads to choose this agent: what it is good at, when to use it."
      >
        {(props) => (
          <textarea
            {...props}
            data-testid="agent-description"
            value={form.description}
            onChange={(e) => set("description", e.target.value)}
            rows={2}
            className={INPUT_CLASS}
          />
        )}
      </Row>
      <Row
        label="Remote agent (A2A)"
        issues={issues.remoteCardUrl}
        hint="The URL of an A2A agent's card: the agent then runs there, and its card describes it when the description is empty. Empty: it runs here."
      >
        {(props) => (
          <input
            {...props}
            data-testid="agent-remote-card"
            type="url"
            inputMode="url"
            placeholder="https://agents.example.com/.well-known/agent-card.json"
            value={form.remoteCardUrl}
            onChange={(e) => set("remoteCardUrl", e.target.value)}
            spellCheck={false}
            autoCapitalize="none"
            className={INPUT_CLASS}
          />
        )}
      </Row>
      <Row label="Instructions" issues={issues.systemPrompt} hint="Its system prompt.">
        {(props) => (
          <textarea
            {...props}
            data-testid="agent-instructions"
            value={form.systemPrompt}
            onChange={(e) => set("systemPrompt", e.target.value)}
            rows={6}
            className={`${INPUT_CLASS} font-mono text-[13px]`}
          />
        )}
      </Row>
      <fieldset className="space-y-1.5" aria-describedby="agent-tools-hint">
        <legend className="text-sm font-medium">Allowed tools</legend>
        <p id="agent-tools-hint" className="text-xs text-zinc-600 dark:text-zinc-400">
          &ldquo;subagent&rdquo; lets it delegate to subagents of its own (a pattern never grants that).
        </p>
        <div className="grid grid-cols-1 gap-x-4 gap-y-1 sm:grid-cols-2">
          {offered.map((tool) => (
            <label key={tool} className="flex items-center gap-2 text-sm">
              <input
                type="checkbox"
                data-testid={`agent-tool-${tool}`}
                checked={form.tools.includes(tool)}
                onChange={(e) => set("tools", e.target.checked ? [...form.tools, tool] : form.tools.filter((t) => t !== tool))}
                className="size-4 accent-sky-700"
              />
              <code className="text-[13px]">{tool}</code>
            </label>
          ))}
        </div>
      </fieldset>
      <Row label="More tools or patterns" issues={issues.patterns} hint="One per line, e.g. github.* for every tool of an MCP server.">
        {(props) => (
          <textarea
            {...props}
            data-testid="agent-patterns"
            value={form.patterns}
            onChange={(e) => set("patterns", e.target.value)}
            rows={2}
            spellCheck={false}
            className={`${INPUT_CLASS} font-mono text-[13px]`}
          />
        )}
      </Row>
      <Row label="Model" issues={issues.model} hint="“Chat’s model” follows the model picked in each chat.">
        {(props) => (
          <select
            {...props}
            data-testid="agent-model"
            value={form.model}
            onChange={(e) => set("model", e.target.value)}
            className={INPUT_CLASS}
          >
            <option value="chat">Chat’s model</option>
            <option value="system">System model (condensing, compaction)</option>
            {modelKeys.map((m) => (
              <option key={m.key} value={m.key}>
                {m.demo ? m.label : `${m.label} · ${m.endpointLabel}`}
              </option>
            ))}
            {form.model !== "chat" && form.model !== "system" && !modelKeys.some((m) => m.key === form.model) ? (
              <option value={form.model}>{form.model} (not offered now)</option>
            ) : null}
          </select>
        )}
      </Row>
      <Row
        label="Approval needed for"
        issues={issues.requireApproval}
        hint="Tools or patterns whose calls wait for you, one per line (edits always do)."
      >
        {(props) => (
          <textarea
            {...props}
            data-testid="agent-approval"
            value={form.requireApproval}
            onChange={(e) => set("requireApproval", e.target.value)}
            rows={2}
            spellCheck={false}
            className={`${INPUT_CLASS} font-mono text-[13px]`}
          />
        )}
      </Row>
      <div className="grid grid-cols-1 gap-4 sm:grid-cols-2">
        <Row label="Max steps" issues={issues.maxSteps} hint="Model requests before it must answer (1–200).">
          {(props) => (
            <input
              {...props}
              data-testid="agent-max-steps"
              inputMode="numeric"
              value={form.maxSteps}
              onChange={(e) => set("maxSteps", e.target.value)}
              className={INPUT_CLASS}
            />
          )}
        </Row>
        <Row label="Timeout (seconds)" issues={issues.timeoutSeconds} hint="Empty: the server's default.">
          {(props) => (
            <input
              {...props}
              data-testid="agent-timeout"
              inputMode="decimal"
              value={form.timeoutSeconds}
              onChange={(e) => set("timeoutSeconds", e.target.value)}
              className={INPUT_CLASS}
            />
          )}
        </Row>
      </div>
      <div className="grid grid-cols-1 gap-4 sm:grid-cols-2">
        <Row
          label="Budget (tokens)"
          issues={issues.budgetTokens}
          hint="A run stops when it has used this many, its subagents' included. Empty: no limit."
        >
          {(props) => (
            <input
              {...props}
              data-testid="agent-budget-tokens"
              inputMode="numeric"
              value={form.budgetTokens}
              onChange={(e) => set("budgetTokens", e.target.value)}
              className={INPUT_CLASS}
            />
          )}
        </Row>
        <Row label="Budget (US dollars)" issues={issues.budgetUsd} hint="Counted where the model's prices are known. Empty: no limit.">
          {(props) => (
            <input
              {...props}
              data-testid="agent-budget-usd"
              inputMode="decimal"
              value={form.budgetUsd}
              onChange={(e) => set("budgetUsd", e.target.value)}
              className={INPUT_CLASS}
            />
          )}
        </Row>
      </div>
      <label className="flex items-center gap-2 text-sm">
        <input
          type="checkbox"
          checked={form.parallelizable}
          onChange={(e) => set("parallelizable", e.target.checked)}
          className="size-4 accent-sky-700"
        />
        Several calls in one step may run at once
      </label>
      {canShare ? (
        <label className="flex items-center gap-2 text-sm">
          <input
            type="checkbox"
            data-testid="agent-shared"
            checked={shared}
            onChange={(e) => setShared(e.target.checked)}
            className="size-4 accent-sky-700"
          />
          Shared with everyone on this server
        </label>
      ) : null}
      {issues.form ? <Problems id="agent-form-problems" messages={issues.form} /> : null}
      <div className="flex flex-wrap items-center gap-2">
        <button type="submit" disabled={busy} data-testid="agent-save" className={PRIMARY_BUTTON}>
          {busy ? "Saving…" : submitLabel}
        </button>
        <button type="button" onClick={onCancel} className={SECONDARY_BUTTON}>
          Cancel
        </button>
      </div>
    </form>
  );
}

interface ControlProps {
  id: string;
  "aria-describedby": string;
  "aria-invalid": boolean;
}

/** A label, its control, its hint and the server's issues for it, tied together for assistive technology. */
function Row({
  label,
  hint,
  issues,
  children,
}: {
  label: string;
  hint?: string;
  issues?: string[];
  children: (props: ControlProps) => ReactNode;
}) {
  const id = useId();
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  return (
    <div className="space-y-1.5">
      <label htmlFor={id} className="text-sm font-medium">
        {label}
      </label>
      {children({ id, "aria-describedby": issues?.length ? `${errorId} ${hintId}` : hintId, "aria-invalid": Boolean(issues?.length) })}
      {issues?.length ? <Problems id={errorId} messages={issues} /> : null}
      {hint ? (
        <p id={hintId} className="text-xs text-zinc-600 dark:text-zinc-400">
          {hint}
        </p>
      ) : null}
    </div>
  );
}

function Problems({ id, messages }: { id: string; messages: string[] }) {
  return (
    <div id={id} role="alert" data-testid="field-error" className="space-y-0.5 text-xs text-red-700 dark:text-red-400">
      {messages.map((message, i) => (
        <p key={i}>{message}</p>
      ))}
    </div>
  );
}
