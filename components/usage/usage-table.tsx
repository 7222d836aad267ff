import type { UsageFigures } from "@/lib/contracts/usage";
import { formatCost } from "@/lib/format/display";
import { formatCount } from "./metric";

export interface UsageRow extends UsageFigures {
  key: string;
  label: string;
}

const NUM = "px-2 py-1.5 text-right tabular-nums whitespace-nowrap";

/**
 * One breakdown as a table: a row per day, model, definition or person, with every figure
 * in full. It scrolls sideways on a phone rather than squeezing the numbers.
 */
export function UsageTable({
  caption,
  first,
  rows,
  testId,
  empty = "Nothing used in this range.",
}: {
  caption: string;
  first: string;
  rows: readonly UsageRow[];
  testId: string;
  empty?: string;
}) {
  if (rows.length === 0) return <p className="text-sm text-zinc-600 dark:text-zinc-400">{empty}</p>;
  return (
    <div className="overflow-x-auto rounded-lg border border-zinc-200 dark:border-zinc-800">
      <table data-testid={testId} className="w-full text-sm">
        <caption className="sr-only">{caption}</caption>
        <thead className="bg-zinc-50 text-xs text-zinc-600 dark:bg-zinc-900 dark:text-zinc-400">
          <tr>
            <th scope="col" className="px-2 py-1.5 text-left font-medium">
              {first}
            </th>
            <th scope="col" className={`${NUM} font-medium`}>
              Tokens
            </th>
            <th scope="col" className={`${NUM} font-medium`}>
              Cost
            </th>
            <th scope="col" className={`${NUM} font-medium`}>
              Turns
            </th>
            <th scope="col" className={`${NUM} font-medium`}>
              Runs
            </th>
            <th scope="col" className={`${NUM} font-medium`}>
              Budget stops
            </th>
          </tr>
        </thead>
        <tbody className="divide-y divide-zinc-200 dark:divide-zinc-800">
          {rows.map((row) => (
            <tr key={row.key} data-testid="usage-row" data-key={row.key}>
              <th scope="row" className="max-w-[14rem] truncate px-2 py-1.5 text-left font-normal" title={row.label}>
                {row.label}
              </th>
              <td
                className={NUM}
                data-figure="tokens"
                title={`${formatCount(row.inputTokens)} in, ${formatCount(row.outputTokens)} out; system ${formatCount(row.systemInputTokens)} in, ${formatCount(row.systemOutputTokens)} out`}
              >
                {formatCount(row.tokens)}
              </td>
              <td className={NUM} data-figure="cost">
                {formatCost(row.costUsd)}
              </td>
              <td className={NUM} data-figure="turns">
                {row.turns}
              </td>
              <td className={NUM} data-figure="runs">
                {row.runs}
              </td>
              <td className={NUM} data-figure="budgetStops">
                {row.budgetStops}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
