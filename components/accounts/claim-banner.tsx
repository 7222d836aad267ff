"use client";

import { useState } from "react";
import { ACCOUNT_ROUTES, type ClaimResult } from "@/lib/contracts/account";
import { post } from "./account-api";
import { useAuthState } from "./use-auth-state";

/**
 * Chats this browser made before it signed in belong to its old cookie identity. They are
 * offered once, with their count; nothing moves unless the person says so, and "Not now"
 * is remembered by the server so the question does not come back.
 */
export function ClaimBanner({ onClaimed }: { onClaimed: () => void }) {
  const { state, refresh } = useAuthState();
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [claimed, setClaimed] = useState<number | null>(null);
  const count = state?.account ? state.claimable : 0;

  const answer = async (accept: boolean) => {
    setPending(true);
    setError(null);
    const result = await post<ClaimResult>(ACCOUNT_ROUTES.claim, { accept });
    setPending(false);
    if (!result.ok) {
      setError(result.message);
      return;
    }
    if (accept) {
      setClaimed(result.data.claimed);
      onClaimed();
    }
    await refresh();
  };

  if (claimed !== null) {
    return (
      <div
        role="status"
        data-testid="claim-done"
        className="border-b border-emerald-200 bg-emerald-50 px-4 py-2 text-sm text-emerald-900 dark:border-emerald-900/60 dark:bg-emerald-950/40 dark:text-emerald-200"
      >
        {claimed === 1 ? "1 chat was added to your account." : `${claimed} chats were added to your account.`}
      </div>
    );
  }
  if (count <= 0) return null;
  return (
    <div
      role="region"
      aria-label="Chats from before you signed in"
      data-testid="claim-banner"
      className="flex flex-wrap items-center gap-x-3 gap-y-2 border-b border-sky-200 bg-sky-50 px-4 py-2.5 text-sm text-sky-950 dark:border-sky-900/60 dark:bg-sky-950/40 dark:text-sky-100"
    >
      <span className="min-w-0 flex-1">
        This browser has {count === 1 ? "1 chat" : `${count} chats`} from before you signed in. Add {count === 1 ? "it" : "them"} to your
        account?
      </span>
      {error ? (
        <span role="alert" className="w-full text-red-700 dark:text-red-300">
          {error}
        </span>
      ) : null}
      <div className="flex gap-2">
        <button
          type="button"
          data-testid="claim-accept"
          disabled={pending}
          onClick={() => void answer(true)}
          className="rounded-md bg-sky-700 px-3 py-1.5 font-medium text-white hover:bg-sky-800 disabled:opacity-50"
        >
          Add
        </button>
        <button
          type="button"
          data-testid="claim-decline"
          disabled={pending}
          onClick={() => void answer(false)}
          className="rounded-md px-3 py-1.5 font-medium text-sky-900 hover:bg-sky-100 disabled:opacity-50 dark:text-sky-100 dark:hover:bg-sky-900/50"
        >
          Not now
        </button>
      </div>
    </div>
  );
}
