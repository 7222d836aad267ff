"use client";

import { useEffect, useState } from "react";
import type { UsageReport } from "@/lib/contracts/usage";
import { callApi } from "@/components/accounts/account-api";
import { usageApiHref } from "@/lib/usage/links";

/** The report's query: UTC days (both included) and, for an admin, one person (null: everyone). */
export interface UsageQueryState {
  from?: string;
  to?: string;
  person?: string | null;
}

/** The report for a query, fetched again whenever it changes; the last answer stays while the next loads. */
export function useUsage(query: UsageQueryState): { report: UsageReport | null; error: string | null; loading: boolean } {
  const [report, setReport] = useState<UsageReport | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const href = usageApiHref(query);
  useEffect(() => {
    let current = true;
    setLoading(true);
    void callApi<UsageReport>(href).then((result) => {
      if (!current) return;
      setLoading(false);
      if (result.ok) {
        setReport(result.data);
        setError(null);
      } else setError(result.message);
    });
    return () => {
      current = false;
    };
  }, [href]);
  return { report, error, loading };
}
