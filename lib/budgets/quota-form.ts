import type { QuotaView, SetQuotaBody } from "@/lib/contracts";
import type { Budget } from "@/lib/contracts";

/**
 * The admin's "Edit quota" form, as text boxes, and what it sends. Pure. Numbers that do
 * not parse are sent as typed, so the server's schema refuses them under their own box.
 */
export interface QuotaForm {
  kind: "default" | "none" | "custom";
  dayTokens: string;
  dayUsd: string;
  monthTokens: string;
  monthUsd: string;
}

export type QuotaField = Exclude<keyof QuotaForm, "kind"> | "form";

export function quotaFormOf(view: QuotaView | undefined): QuotaForm {
  const own = view?.source === "custom";
  const text = (budget: Budget | undefined, part: "tokens" | "usd") => (own && budget?.[part] !== undefined ? String(budget[part]) : "");
  return {
    kind: view?.source ?? "default",
    dayTokens: text(view?.day, "tokens"),
    dayUsd: text(view?.day, "usd"),
    monthTokens: text(view?.month, "tokens"),
    monthUsd: text(view?.month, "usd"),
  };
}

export function quotaBodyOf(form: QuotaForm): SetQuotaBody {
  if (form.kind !== "custom") return { kind: form.kind };
  const period = (tokens: string, usd: string) => ({
    ...(tokens.trim() ? { tokens: numberOrText(tokens.replace(/[,\s_]/g, "")) } : {}),
    ...(usd.trim() ? { usd: numberOrText(usd.replace(/^\s*\$/, "")) } : {}),
  });
  // Sent as typed where it is not a number: the schema names the box.
  return { kind: "custom", day: period(form.dayTokens, form.dayUsd), month: period(form.monthTokens, form.monthUsd) } as SetQuotaBody;
}

const FIELD_OF: Record<string, QuotaField> = {
  "day.tokens": "dayTokens",
  "day.usd": "dayUsd",
  "month.tokens": "monthTokens",
  "month.usd": "monthUsd",
};

/** The server's issues under the box each belongs to; the rest under the form. */
export function quotaIssuesByField(issues: readonly { path: string; message: string }[]): Partial<Record<QuotaField, string[]>> {
  const out: Partial<Record<QuotaField, string[]>> = {};
  for (const issue of issues) (out[FIELD_OF[issue.path] ?? "form"] ??= []).push(issue.message);
  return out;
}

function numberOrText(text: string): number | string {
  const n = Number(text.trim());
  return text.trim() !== "" && Number.isFinite(n) ? n : text;
}
