import {
  inputFieldNameSchema,
  inputFormSchema,
  MAX_INPUT_MESSAGE_CHARS,
  type InputContent,
  type InputField,
  type InputForm,
  type InputValue,
} from "@/lib/contracts";

/**
 * The forms a tool may ask a person to fill, and the answers that fit them. Both sides are
 * untrusted: a form comes from a tool (an MCP server's elicitation), an answer from a
 * person's socket. A form outside the subset (lib/contracts/input.ts) is refused with a
 * sentence the tool or its server reads; an answer that does not fit its form is refused
 * with a sentence the person reads, and the question keeps waiting.
 */

export type FormCheck = { ok: true; form: InputForm; message: string } | { ok: false; error: string };

/** Checks a tool's question before anyone is asked. */
export function parseInputForm(message: unknown, raw: unknown): FormCheck {
  if (typeof message !== "string" || !message.trim()) return { ok: false, error: "The question needs a message a person can read." };
  if (message.length > MAX_INPUT_MESSAGE_CHARS)
    return {
      ok: false,
      error: `The question's message is ${message.length} characters long; at most ${MAX_INPUT_MESSAGE_CHARS} are allowed.`,
    };
  // `$schema` names the dialect; it changes nothing about the fields.
  const body = raw !== null && typeof raw === "object" && !Array.isArray(raw) ? withoutKey(raw as Record<string, unknown>, "$schema") : raw;
  const badName = fieldNames(body).find((name) => !inputFieldNameSchema.safeParse(name).success);
  if (badName !== undefined)
    return {
      ok: false,
      error: `The question's form has a field named ${JSON.stringify(badName.slice(0, 80))}; a field name is 1 to 64 letters, digits, '_', '.' or '-'.`,
    };
  const parsed = inputFormSchema.safeParse(body);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "(form)"}: ${i.message}`).join("; ");
    return {
      ok: false,
      error: `The question's form is not one Delegate can show (${issues}). A form is an object of flat fields: string (with enum, or format email, uri or date), number or integer (minimum, maximum), or boolean.`,
    };
  }
  const form = parsed.data;
  const names = Object.keys(form.properties);
  const unknown = (form.required ?? []).filter((name) => !names.includes(name));
  if (unknown.length) return { ok: false, error: `The question's form requires fields it does not define: ${unknown.join(", ")}.` };
  for (const [name, field] of Object.entries(form.properties)) {
    const problem = fieldProblem(field);
    if (problem) return { ok: false, error: `The question's form field "${name}" ${problem}.` };
  }
  return { ok: true, form, message };
}

function fieldProblem(field: InputField): string | undefined {
  if (field.type === "string") {
    if (field.enumNames && (!field.enum || field.enumNames.length !== field.enum.length)) return "has enumNames that do not match its enum";
    if (field.minLength !== undefined && field.maxLength !== undefined && field.minLength > field.maxLength)
      return "has a minLength above its maxLength";
  }
  if ((field.type === "number" || field.type === "integer") && field.minimum !== undefined && field.maximum !== undefined) {
    if (field.minimum > field.maximum) return "has a minimum above its maximum";
  }
  return undefined;
}

export type AnswerCheck = { ok: true; content: InputContent } | { ok: false; error: string };

/** Checks a person's answer against the form it answers; every problem is named at once. */
export function checkInputAnswer(form: InputForm, content: InputContent): AnswerCheck {
  const problems: string[] = [];
  const required = new Set(form.required ?? []);
  for (const name of Object.keys(content)) {
    if (!Object.hasOwn(form.properties, name)) problems.push(`"${name}" is not a field of this form`);
  }
  for (const [name, field] of Object.entries(form.properties)) {
    const value = Object.hasOwn(content, name) ? content[name] : undefined;
    const label = field.title || name;
    if (value === undefined || value === "") {
      if (required.has(name)) problems.push(`${label} is required`);
      continue;
    }
    const problem = valueProblem(field, value);
    if (problem) problems.push(`${label} ${problem}`);
  }
  if (problems.length) return { ok: false, error: `The answer does not fit the form: ${problems.join("; ")}.` };
  // Empty optional text is no answer for that field.
  const kept = Object.fromEntries(Object.entries(content).filter(([, v]) => v !== ""));
  return { ok: true, content: kept };
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

function valueProblem(field: InputField, value: InputValue): string | undefined {
  switch (field.type) {
    case "boolean":
      return typeof value === "boolean" ? undefined : "must be true or false";
    case "number":
    case "integer": {
      if (typeof value !== "number" || !Number.isFinite(value)) return "must be a number";
      if (field.type === "integer" && !Number.isInteger(value)) return "must be a whole number";
      if (field.minimum !== undefined && value < field.minimum) return `must be at least ${field.minimum}`;
      if (field.maximum !== undefined && value > field.maximum) return `must be at most ${field.maximum}`;
      return undefined;
    }
    case "string": {
      if (typeof value !== "string") return "must be text";
      if (field.enum && !field.enum.includes(value)) return `must be one of ${field.enum.map((v) => JSON.stringify(v)).join(", ")}`;
      if (field.minLength !== undefined && value.length < field.minLength) return `must be at least ${field.minLength} characters`;
      if (field.maxLength !== undefined && value.length > field.maxLength) return `must be at most ${field.maxLength} characters`;
      if (field.format === "email" && !EMAIL.test(value)) return "must be an email address";
      if (field.format === "uri" && !isUri(value)) return "must be an absolute URI";
      if (field.format === "date" && !isDate(value)) return "must be a date (YYYY-MM-DD)";
      return undefined;
    }
  }
}

function isUri(value: string): boolean {
  try {
    new URL(value);
    return true;
  } catch {
    return false;
  }
}

function isDate(value: string): boolean {
  const m = DATE.exec(value);
  if (!m) return false;
  const date = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return date.getUTCFullYear() === Number(m[1]) && date.getUTCMonth() === Number(m[2]) - 1 && date.getUTCDate() === Number(m[3]);
}

function fieldNames(body: unknown): string[] {
  if (body === null || typeof body !== "object") return [];
  const properties = (body as Record<string, unknown>).properties;
  return properties !== null && typeof properties === "object" && !Array.isArray(properties) ? Object.keys(properties) : [];
}

function withoutKey(object: Record<string, unknown>, key: string): Record<string, unknown> {
  const { [key]: _drop, ...rest } = object;
  return rest;
}
