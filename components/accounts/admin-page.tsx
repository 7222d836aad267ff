"use client";

import { notFound } from "next/navigation";
import { useAuthState } from "./use-auth-state";
import { AdminAccounts } from "./admin-accounts";
import { AdminInvites } from "./admin-invites";
import { PageFrame } from "./page-frame";

/**
 * /admin. Anyone but an admin gets the app's ordinary not-found page, as for an address
 * that does not exist: the page does not confirm there is something to be refused.
 * (The server refuses the admin routes on its own; this only decides what to render.)
 */
export function AdminPage() {
  const { state } = useAuthState();
  if (!state) return <div className="h-full" aria-busy="true" />;
  if (state.account?.role !== "admin") notFound();
  return (
    <PageFrame title="Administration">
      <AdminAccounts selfId={state.account.id} />
      <AdminInvites mode={state.mode} />
    </PageFrame>
  );
}
