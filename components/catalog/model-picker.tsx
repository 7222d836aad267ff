"use client";

import { modelDetails } from "@/lib/catalog/describe";
import type { ModelCatalog, ModelOption } from "@/lib/contracts";

export interface ModelPickerProps {
  catalog: ModelCatalog | null;
  /** The chosen model's key; the catalog's default until the chat's settings are known. */
  value: string | undefined;
  onChange: (key: string) => void;
  disabled?: boolean;
}

/**
 * The master's model for this chat, under the prompt box: every configured endpoint's
 * models, grouped by endpoint. A native select, so it is the platform's own on a phone and
 * answers the keyboard as every select does. Hidden while there is nothing to choose.
 */
export function ModelPicker({ catalog, value, onChange, disabled = false }: ModelPickerProps) {
  if (!catalog || catalog.models.length < 2) return null;
  const chosen = value && catalog.models.some((m) => m.key === value) ? value : catalog.defaultKey;
  const current = catalog.models.find((m) => m.key === chosen);
  const groups = new Map<string, ModelOption[]>();
  for (const model of catalog.models) groups.set(model.endpointId, [...(groups.get(model.endpointId) ?? []), model]);
  return (
    <label className="flex min-w-0 items-center gap-1 text-xs text-zinc-600 dark:text-zinc-300">
      <span className="sr-only">Model</span>
      <select
        data-testid="model-picker"
        value={chosen}
        disabled={disabled}
        onChange={(e) => onChange(e.target.value)}
        title={current ? [current.label, current.endpointLabel, modelDetails(current)].filter(Boolean).join(" · ") : "Model"}
        className="max-w-[min(18rem,60vw)] truncate rounded-md [field-sizing:content] border border-transparent bg-transparent py-0.5 pr-1 pl-1 hover:border-zinc-300 focus:border-sky-500 focus:outline-none disabled:opacity-60 dark:hover:border-zinc-700"
      >
        {[...groups].map(([endpointId, models]) => {
          const status = catalog.endpoints.find((e) => e.id === endpointId);
          const label = `${models[0]!.endpointLabel}${status?.source === "failed" ? " (not answering)" : ""}`;
          return (
            <optgroup key={endpointId} label={label}>
              {models.map((m) => {
                const details = modelDetails(m);
                return (
                  <option key={m.key} value={m.key}>
                    {details ? `${m.label} — ${details}` : m.label}
                  </option>
                );
              })}
            </optgroup>
          );
        })}
      </select>
    </label>
  );
}
