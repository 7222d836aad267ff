"use client";

import { useState } from "react";
import Link from "next/link";
import type { UsageFigures, UsageReport } from "@/lib/contracts/usage";
import { formatCost } from "@/lib/format/display";
import { AGENTS_PATH } from "@/lib/agents/links";
import { PageFrame, Section } from "@/components/accounts/page-frame";
import { INPUT_CLASS, LINK_CLASS } from "@/components/accounts/fields";
import { formatCount, type Metric } from "./metric";
import { UsageChart } from "./usage-chart";
import { UsageTable } from "./usage-table";
import { useUsage } from "./use-usage";

const RANGES = [7, 30, 90, 365] as const;

/** Today minus `n - 1` days, as the UTC day the server counts in. */
function daysAgo(n: number): string {
  return new Date(Date.now() - (n - 1) * 86_400_000).toISOString().slice(0, 10);
}

/**
 * "Usage": what a person's turns and subagent runs spent, per day (a chart and a table),
 * per model and per agent; an admin picks everyone (with a row per person) or one person.
 */
export function UsagePage() {
  const [days, setDays] = useState<number>(30);
  const [person, setPerson] = useState<string | null>(null);
  const [metric, setMetric] = useState<Metric>("tokens");
  const { report, error, loading } = useUsage({ from: daysAgo(days), to: daysAgo(1), person });
  // The people an admin may pick, from the last everyone's report (one person's has no list).
  const [people, setPeople] = useState<{ id: string; label: string }[]>([]);
  const [seen, setSeen] = useState<UsageReport | null>(null);
  if (report !== seen) {
    setSeen(report);
    if (report?.people) setPeople(report.people.map((p) => ({ id: p.personId, label: p.label })));
  }

  return (
    <PageFrame title="Usage">
      <p className="text-sm text-zinc-600 dark:text-zinc-400">
        Tokens, cost, turns and subagent runs, summed from the stored turns and runs of the chats. Days are UTC days; a subagent counts on
        the day its turn started. Each agent is credited what it spent itself, so the rows of every breakdown add up to the totals. See also{" "}
        <Link href={AGENTS_PATH} className={LINK_CLASS}>
          Agents
        </Link>
        .
      </p>
      <div className="flex flex-wrap items-end gap-3">
        <label className="text-sm">
          <span className="mb-1 block text-xs font-medium text-zinc-600 dark:text-zinc-400">Range</span>
          <select data-testid="usage-range" value={days} onChange={(e) => setDays(Number(e.target.value))} className={INPUT_CLASS}>
            {RANGES.map((n) => (
              <option key={n} value={n}>
                Last {n} days
              </option>
            ))}
          </select>
        </label>
        {report?.canSeeEveryone ? (
          <label className="text-sm">
            <span className="mb-1 block text-xs font-medium text-zinc-600 dark:text-zinc-400">Person</span>
            <select
              data-testid="usage-person"
              value={person ?? ""}
              onChange={(e) => setPerson(e.target.value || null)}
              className={INPUT_CLASS}
            >
              <option value="">Everyone</option>
              {people.map((p) => (
                <option key={p.id} value={p.id}>
                  {p.label}
                </option>
              ))}
            </select>
          </label>
        ) : null}
        {loading ? (
          <span role="status" className="pb-2 text-xs text-zinc-500 dark:text-zinc-400">
            Loading…
          </span>
        ) : null}
      </div>
      {error ? (
        <p role="alert" className="text-sm text-red-700 dark:text-red-400">
          Could not load the usage: {error}
        </p>
      ) : null}
      {report ? <Report report={report} metric={metric} onMetric={setMetric} /> : null}
    </PageFrame>
  );
}

function Report({ report, metric, onMetric }: { report: UsageReport; metric: Metric; onMetric(m: Metric): void }) {
  const used = report.days.filter((d) => d.turns > 0 || d.tokens > 0).reverse();
  return (
    <div data-testid="usage-report" data-from={report.from} data-to={report.to} className="space-y-8">
      <Totals totals={report.totals} />
      <Section title={metric === "tokens" ? "Tokens per day" : "Cost per day"} testId="usage-per-day">
        <div role="group" aria-label="Show" className="inline-flex rounded-md border border-zinc-300 p-0.5 dark:border-zinc-700">
          {(["tokens", "cost"] as const).map((m) => (
            <button
              key={m}
              type="button"
              aria-pressed={metric === m}
              data-testid={`usage-metric-${m}`}
              onClick={() => onMetric(m)}
              className={`rounded px-3 py-1 text-sm font-medium ${
                metric === m ? "bg-sky-700 text-white" : "text-zinc-700 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800"
              }`}
            >
              {m === "tokens" ? "Tokens" : "Cost"}
            </button>
          ))}
        </div>
        <UsageChart days={report.days} metric={metric} />
        <UsageTable
          caption="Usage per day, newest first; days without use are left out"
          first="Day (UTC)"
          testId="usage-days"
          rows={used.map((d) => ({ ...d, key: d.day, label: d.day }))}
        />
      </Section>
      {report.people ? (
        <Section title="Per person" testId="usage-per-person">
          <UsageTable
            caption="Usage per person"
            first="Person"
            testId="usage-people"
            rows={report.people.map((p) => ({ ...p, key: p.personId }))}
          />
        </Section>
      ) : null}
      <Section
        title="Per model"
        description="The model each agent ran on; older records that did not keep it count as Unknown model."
        testId="usage-per-model"
      >
        <UsageTable
          caption="Usage per model"
          first="Model"
          testId="usage-models"
          rows={report.models.map((m) => ({ ...m, key: m.model, label: m.model }))}
        />
      </Section>
      <Section
        title="Per agent"
        description="The master agent and each subagent definition (with its version for one made in the app). Condensation and compaction count under the agent that needed them."
        testId="usage-per-agent"
      >
        <UsageTable caption="Usage per agent definition" first="Agent" testId="usage-definitions" rows={report.definitions} />
      </Section>
    </div>
  );
}

function Totals({ totals }: { totals: UsageFigures }) {
  const items: [string, string, string][] = [
    ["tokens", "Tokens", formatCount(totals.tokens)],
    ["cost", "Cost", formatCost(totals.costUsd)],
    ["turns", "Turns", String(totals.turns)],
    ["runs", "Subagent runs", String(totals.runs)],
    ["budget-stops", "Budget stops", String(totals.budgetStops)],
  ];
  return (
    <dl data-testid="usage-totals" className="grid grid-cols-2 gap-2 sm:grid-cols-5">
      {items.map(([key, label, value]) => (
        <div key={key} className="rounded-lg border border-zinc-200 px-3 py-2 dark:border-zinc-800">
          <dt className="text-xs text-zinc-600 dark:text-zinc-400">{label}</dt>
          <dd data-testid={`usage-total-${key}`} className="text-lg font-semibold tabular-nums">
            {value}
          </dd>
        </div>
      ))}
    </dl>
  );
}
