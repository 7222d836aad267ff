"use client";

import { useEffect, useState } from "react";
import { ACCOUNT_ROUTES, type QuotaView } from "@/lib/contracts";
import { callApi } from "./account-api";
import { Section } from "./page-frame";
import { QuotaSummary } from "./quota-summary";

/** The signed-in person's quota and what they spent against it; nothing where the server counts no quotas. */
export function OwnQuota() {
  const [quota, setQuota] = useState<QuotaView | null>(null);
  useEffect(() => {
    void callApi<QuotaView | null>(ACCOUNT_ROUTES.quota).then((result) => {
      if (result.ok) setQuota(result.data);
    });
  }, []);
  if (!quota) return null;
  return (
    <Section title="Usage quota" description="What you may spend on models, counted across all your chats." testId="account-quota">
      <QuotaSummary quota={quota} />
    </Section>
  );
}
