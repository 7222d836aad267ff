import type { DefinitionFields } from "@/lib/contracts";

/** A definition read-only, field by field (an older version, or the operator's). Model text is rendered as text. */
export function DefinitionView({ definition }: { definition: DefinitionFields }) {
  const remote = typeof definition.a2a === "object" && definition.a2a !== null ? (definition.a2a as Record<string, unknown>) : undefined;
  const rows: [string, string][] = [
    ...(remote ? ([["Remote agent (A2A)", String(remote.cardUrl ?? "")]] as [string, string][]) : []),
    ["Description", String(definition.description ?? "")],
    ["Instructions", String(definition.systemPrompt ?? "")],
    ["Allowed tools", list(definition.allowedTools)],
    ["Approval needed for", list(definition.requireApproval)],
    ["Model", typeof definition.model === "string" ? definition.model : JSON.stringify(definition.model ?? "chat")],
    ["Max steps", String(definition.maxSteps ?? "")],
    ["Timeout", typeof definition.timeoutMs === "number" ? `${definition.timeoutMs / 1000} s` : "the server's default"],
  ];
  return (
    <dl data-testid="definition-view" className="space-y-2 rounded-lg border border-zinc-200 p-3 text-sm dark:border-zinc-800">
      {rows.map(([label, value]) => (
        <div key={label} className="grid gap-0.5 sm:grid-cols-[10rem_1fr]">
          <dt className="text-zinc-500 dark:text-zinc-400">{label}</dt>
          <dd className="min-w-0 break-words whitespace-pre-wrap">{value || "—"}</dd>
        </div>
      ))}
    </dl>
  );
}

function list(value: unknown): string {
  return Array.isArray(value) ? value.join(", ") : "";
}
