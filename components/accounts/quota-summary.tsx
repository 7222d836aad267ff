"use client";

import type { Budget, QuotaView } from "@/lib/contracts";
import { spendAgainst } from "@/lib/budgets/spend";
import { When } from "./page-frame";

const SOURCE_TEXT: Record<QuotaView["source"], string> = {
  default: "the server's default",
  none: "no limit",
  custom: "set for this account",
};

/** Today's and this month's spend against a quota, with when each resets; shared by the admin's list and the account page. */
export function QuotaSummary({ quota, testId }: { quota: QuotaView; testId?: string }) {
  return (
    <div data-testid={testId} data-source={quota.source} className="space-y-0.5 text-xs text-zinc-700 dark:text-zinc-300">
      <p>
        <span className="font-medium">Quota:</span> {SOURCE_TEXT[quota.source]}
      </p>
      <Period label="Today" spent={quota.used.day} limit={quota.day} resetsAt={quota.resetsAt.day} testId="quota-day" />
      <Period label="This month" spent={quota.used.month} limit={quota.month} resetsAt={quota.resetsAt.month} testId="quota-month" />
    </div>
  );
}

function Period(props: { label: string; spent: QuotaView["used"]["day"]; limit?: Budget; resetsAt: string; testId: string }) {
  const { spent, limit } = props;
  return (
    <p data-testid={props.testId} className="tabular-nums">
      {props.label}: {limit ? spendAgainst(spent, limit) : `${new Intl.NumberFormat("en-US").format(spent.tokens)} tokens, no limit`}
      {limit ? (
        <span className="text-zinc-600 dark:text-zinc-400">
          {" "}
          (resets <When iso={props.resetsAt} />)
        </span>
      ) : null}
    </p>
  );
}
