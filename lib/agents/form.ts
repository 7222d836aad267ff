import type { DefinitionFields, Issue } from "@/lib/contracts";

/**
 * The definition form's state and its way to and from a definition's fields. Pure, so the
 * page and its tests share it: the form holds text as typed, and what it sends is the
 * plain definition the server checks with the definitions' schema.
 */

/** The tools every agent may be given by name (lib/tools), and `subagent` to delegate further. */
export const KNOWN_TOOLS = ["list_files", "grep", "file_read", "url_fetch", "file_edit", "file_write", "subagent"] as const;

export interface AgentForm {
  name: string;
  description: string;
  systemPrompt: string;
  /** Checked known tools and MCP tools. */
  tools: string[];
  /** Other names and patterns (`docs.*`), one per line. */
  patterns: string;
  /** "chat", "system" or a model key of the menu (a definition made in the app has no model of its own). */
  model: string;
  /** Tools and patterns whose calls wait for a person, one per line. */
  requireApproval: string;
  maxSteps: string;
  /** Seconds; "" for the server's default. */
  timeoutSeconds: string;
  /** What one run may spend, its subagents' included; "" for no limit. */
  budgetTokens: string;
  budgetUsd: string;
  parallelizable: boolean;
  /** The agent card's URL of a remote A2A agent it runs on; "" runs it here. */
  remoteCardUrl: string;
}

export const EMPTY_FORM: AgentForm = {
  name: "",
  description: "",
  systemPrompt: "",
  tools: ["list_files", "grep", "file_read"],
  patterns: "",
  model: "chat",
  requireApproval: "",
  maxSteps: "12",
  timeoutSeconds: "",
  budgetTokens: "",
  budgetUsd: "",
  parallelizable: true,
  remoteCardUrl: "",
};

const lines = (text: string) =>
  text
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean);

/** The form for a definition's fields; tools it does not offer as boxes (`offered`) go to the patterns. */
export function formOf(fields: DefinitionFields, offered: readonly string[]): AgentForm {
  const allowed = Array.isArray(fields.allowedTools) ? fields.allowedTools.filter((t): t is string => typeof t === "string") : [];
  const approval = Array.isArray(fields.requireApproval) ? fields.requireApproval.filter((t): t is string => typeof t === "string") : [];
  const model = typeof fields.model === "string" ? fields.model : "chat";
  return {
    name: String(fields.name ?? ""),
    description: String(fields.description ?? ""),
    systemPrompt: String(fields.systemPrompt ?? ""),
    tools: allowed.filter((t) => offered.includes(t)),
    patterns: allowed.filter((t) => !offered.includes(t)).join("\n"),
    model,
    requireApproval: approval.join("\n"),
    maxSteps: String(fields.maxSteps ?? 12),
    timeoutSeconds: typeof fields.timeoutMs === "number" ? String(fields.timeoutMs / 1000) : "",
    budgetTokens: budgetPart(fields.budget, "tokens"),
    budgetUsd: budgetPart(fields.budget, "usd"),
    parallelizable: fields.parallelizable !== false,
    remoteCardUrl: remoteCardOf(fields.a2a),
  };
}

function remoteCardOf(a2a: unknown): string {
  const url = typeof a2a === "object" && a2a !== null ? (a2a as Record<string, unknown>).cardUrl : undefined;
  return typeof url === "string" ? url : "";
}

/** The definition the form describes. Numbers that do not parse are sent as typed, so the server's schema names the field. */
export function fieldsOf(form: AgentForm): DefinitionFields {
  const approval = lines(form.requireApproval);
  const timeout = form.timeoutSeconds.trim();
  const tokens = form.budgetTokens.trim();
  const usd = form.budgetUsd.trim();
  const card = form.remoteCardUrl.trim();
  // A remote agent's card describes it: left empty, its description and instructions are not sent.
  return {
    name: form.name.trim(),
    ...(card && !form.description.trim() ? {} : { description: form.description }),
    ...(card && !form.systemPrompt.trim() ? {} : { systemPrompt: form.systemPrompt }),
    ...(card ? { a2a: { cardUrl: card } } : {}),
    allowedTools: [...new Set([...form.tools, ...lines(form.patterns)])],
    ...(approval.length ? { requireApproval: approval } : {}),
    model: form.model,
    maxSteps: numberOrText(form.maxSteps),
    ...(timeout ? { timeoutMs: typeof numberOrText(timeout) === "number" ? Math.round(Number(timeout) * 1000) : timeout } : {}),
    ...(tokens || usd
      ? { budget: { ...(tokens ? { tokens: numberOrText(tokens) } : {}), ...(usd ? { usd: numberOrText(usd) } : {}) } }
      : {}),
    parallelizable: form.parallelizable,
  };
}

function budgetPart(budget: unknown, part: "tokens" | "usd"): string {
  const value = typeof budget === "object" && budget !== null ? (budget as Record<string, unknown>)[part] : undefined;
  return typeof value === "number" ? String(value) : "";
}

function numberOrText(text: string): number | string {
  const n = Number(text.trim());
  return text.trim() !== "" && Number.isFinite(n) ? n : text;
}

/** The form field each definition field's issues show under. */
const FIELD_OF: Record<string, keyof AgentForm> = {
  name: "name",
  description: "description",
  systemPrompt: "systemPrompt",
  allowedTools: "patterns",
  requireApproval: "requireApproval",
  model: "model",
  maxSteps: "maxSteps",
  timeoutMs: "timeoutSeconds",
  budget: "budgetTokens",
  parallelizable: "parallelizable",
  a2a: "remoteCardUrl",
};

/** The server's issues grouped by the form field they belong under; the rest under "form". */
export function issuesByField(issues: readonly Issue[]): Partial<Record<keyof AgentForm | "form", string[]>> {
  const out: Partial<Record<keyof AgentForm | "form", string[]>> = {};
  for (const issue of issues) {
    const top = issue.path.split(".")[0] ?? "";
    // A budget's two parts have a box each.
    const field = issue.path === "budget.usd" ? "budgetUsd" : (FIELD_OF[top] ?? "form");
    const nested = issue.path.includes(".") && field !== "form" ? `${issue.path.slice(top.length + 1)}: ` : "";
    const message = field === "timeoutSeconds" ? issue.message.replace(/\d{4,}/g, (ms) => `${Number(ms) / 1000} s`) : issue.message;
    (out[field] ??= []).push(`${nested}${message}`);
  }
  return out;
}
