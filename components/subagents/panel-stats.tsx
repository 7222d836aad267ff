import type { TurnStats } from "@/lib/contracts";
import { formatCost } from "@/lib/format/display";
import { Elapsed } from "./elapsed";

export interface PanelStatsProps {
  stats?: TurnStats;
  startedAt: string;
  endedAt?: string;
  running: boolean;
  /** Label of the model the run used; its cost is priced at that model's prices. */
  model?: string;
}

/** Tokens in/out, steps, runtime, cost and model of one run, as a quiet definition list. */
export function PanelStats({ stats, startedAt, endedAt, running, model }: PanelStatsProps) {
  const inTokens = (stats?.chat.inputTokens ?? 0) + (stats?.system.inputTokens ?? 0);
  const outTokens = (stats?.chat.outputTokens ?? 0) + (stats?.system.outputTokens ?? 0);
  return (
    <dl className="flex flex-wrap gap-x-4 gap-y-1 text-xs text-zinc-500 dark:text-zinc-400">
      <Stat label="Tokens in" value={inTokens.toLocaleString()} />
      <Stat label="Tokens out" value={outTokens.toLocaleString()} />
      <Stat label="Steps" value={String(stats?.steps ?? 0)} />
      <div className="flex gap-1">
        <dt>Runtime</dt>
        <dd className="font-medium text-zinc-700 dark:text-zinc-300">
          <Elapsed startedAt={startedAt} endedAt={endedAt} runtimeMs={stats?.runtimeMs} running={running} />
        </dd>
      </div>
      <Stat label="Cost" value={formatCost(stats?.cost ?? 0)} />
      {model ? (
        <div className="flex min-w-0 gap-1" data-testid="subagent-model-stat">
          <dt>Model</dt>
          <dd className="min-w-0 font-medium break-words text-zinc-700 dark:text-zinc-300">{model}</dd>
        </div>
      ) : null}
    </dl>
  );
}

function Stat({ label, value }: { label: string; value: string }) {
  return (
    <div className="flex gap-1">
      <dt>{label}</dt>
      <dd className="font-medium text-zinc-700 tabular-nums dark:text-zinc-300">{value}</dd>
    </div>
  );
}
