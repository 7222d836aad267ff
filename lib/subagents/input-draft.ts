import type { InputContent, InputField, InputForm, InputRequest } from "@/lib/contracts";
import { checkInputAnswer } from "@/lib/agent/input-form";

/**
 * A question's form as the card draws it, and the person's draft as the answer it sends.
 * The fields keep the form's order; each becomes one plain control (text, email, URL,
 * date, a choice, a number, a checkbox). What a person types is text until it is sent,
 * so the draft is read back into the form's types here and checked with the same rules
 * the server applies (lib/agent/input-form.ts), so the card can say what is wrong before
 * sending; the server checks again.
 */

export type DraftKind = "text" | "email" | "url" | "date" | "select" | "number" | "checkbox";

export interface DraftField {
  name: string;
  label: string;
  description?: string;
  required: boolean;
  kind: DraftKind;
  /** A choice's values and labels. */
  options?: { value: string; label: string }[];
  min?: number;
  max?: number;
  /** "1" for integers. */
  step?: "1" | "any";
  minLength?: number;
  maxLength?: number;
}

/** What the person has entered so far: text per field, a boolean per checkbox. */
export type Draft = Record<string, string | boolean>;

export function draftFields(form: InputForm): DraftField[] {
  const required = new Set(form.required ?? []);
  return Object.entries(form.properties).map(([name, field]) => ({
    name,
    label: field.title?.trim() || name,
    ...(field.description ? { description: field.description } : {}),
    required: required.has(name),
    ...kindOf(field),
  }));
}

function kindOf(field: InputField): Omit<DraftField, "name" | "label" | "description" | "required"> {
  switch (field.type) {
    case "boolean":
      return { kind: "checkbox" };
    case "number":
    case "integer":
      return {
        kind: "number",
        step: field.type === "integer" ? "1" : "any",
        ...(field.minimum !== undefined ? { min: field.minimum } : {}),
        ...(field.maximum !== undefined ? { max: field.maximum } : {}),
      };
    case "string": {
      const lengths = {
        ...(field.minLength !== undefined ? { minLength: field.minLength } : {}),
        ...(field.maxLength !== undefined ? { maxLength: field.maxLength } : {}),
      };
      if (field.enum) {
        const labels = field.enumNames;
        return { kind: "select", options: field.enum.map((value, i) => ({ value, label: labels?.[i] || value })) };
      }
      if (field.format === "email") return { kind: "email", ...lengths };
      if (field.format === "uri") return { kind: "url", ...lengths };
      if (field.format === "date") return { kind: "date" };
      return { kind: "text", ...lengths };
    }
  }
}

/** The draft a card starts from: each field's default, an empty text, or an unticked box. */
export function initialDraft(form: InputForm): Draft {
  const draft: Draft = {};
  for (const [name, field] of Object.entries(form.properties)) {
    if (field.type === "boolean") draft[name] = field.default ?? false;
    else draft[name] = field.default === undefined ? "" : String(field.default);
  }
  return draft;
}

export type DraftAnswer = { ok: true; content: InputContent } | { ok: false; error: string };

/** The draft as the answer to send, or why it cannot be sent yet. */
export function answerOfDraft(form: InputForm, draft: Draft): DraftAnswer {
  const content: InputContent = {};
  for (const [name, field] of Object.entries(form.properties)) {
    const value = draft[name];
    if (field.type === "boolean") {
      content[name] = value === true;
      continue;
    }
    const text = typeof value === "string" ? value.trim() : "";
    if (text === "") continue;
    if (field.type === "string") content[name] = typeof value === "string" ? value : "";
    else content[name] = Number.isFinite(Number(text)) ? Number(text) : text;
  }
  const checked = checkInputAnswer(form, content);
  return checked.ok ? checked : { ok: false, error: checked.error };
}

/**
 * One line saying how a question ended, for the card's answered state and the audit;
 * `clock` says when (empty: not said), `name` who answered when the chat knows them.
 */
export function inputOutcome(input: InputRequest, clock: (iso: string | undefined) => string = () => "", name?: string): string {
  const at = clock(input.answeredAt);
  const by = name ? ` by ${name}` : input.answeredBy ? ` by identity ${input.answeredBy.slice(0, 12)}` : "";
  switch (input.state) {
    case "pending":
      return "Waiting for an answer";
    case "accepted":
      return `Answered${by}${at ? ` at ${at}` : ""}: ${answerSummary(input)}`;
    case "declined":
      return `Declined${by}${at ? ` at ${at}` : ""}`;
    case "expired":
      return `Expired${input.note ? `: ${input.note}` : ""}`;
    case "cancelled":
      return `Ended unanswered${input.note ? `: ${input.note}` : ""}`;
  }
}

/** The accepted fields as "Label: value", in the form's order; a checkbox reads yes or no. */
export function answerSummary(input: InputRequest): string {
  const content = input.content ?? {};
  const parts = draftFields(input.form)
    .filter((field) => Object.hasOwn(content, field.name))
    .map((field) => {
      const value = content[field.name];
      const shown =
        typeof value === "boolean" ? (value ? "yes" : "no") : (field.options?.find((o) => o.value === value)?.label ?? String(value));
      return `${field.label}: ${shown}`;
    });
  return parts.join(", ") || "(no fields)";
}
