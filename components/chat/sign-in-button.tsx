"use client";

import { useState } from "react";
import type { McpSignInAnswer } from "@/lib/oauth/sign-in-routes";

/**
 * Sign in / Sign out for something each person signs in to (an MCP server, a remote agent).
 * Signing in sends the browser to the authorization page, which sends it back to the app;
 * signing out forgets this person's tokens at once. A refusal is shown in the server's words.
 */
export function SignInButton({
  route,
  signedIn,
  onChanged,
}: {
  /** The sign-in route of this server or agent, for either action. */
  route: (action: "sign-in" | "sign-out") => string;
  signedIn: boolean;
  onChanged: () => void;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const act = async () => {
    setBusy(true);
    setError(null);
    try {
      const res = await fetch(route(signedIn ? "sign-out" : "sign-in"), { method: "POST", credentials: "same-origin" });
      const body = (await res.json().catch(() => ({}))) as Partial<McpSignInAnswer> & { error?: { message?: string } };
      if (!res.ok) throw new Error(body.error?.message ?? `The server answered ${res.status}.`);
      if (body.authorizationUrl) {
        window.location.assign(body.authorizationUrl);
        return;
      }
      onChanged();
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    }
    setBusy(false);
  };

  return (
    <div className="mt-1 ml-4">
      <button
        type="button"
        onClick={() => void act()}
        disabled={busy}
        data-testid="sign-in-button"
        className="rounded-md border border-zinc-300 px-2 py-0.5 text-xs text-zinc-700 hover:bg-zinc-100 disabled:opacity-50 dark:border-zinc-600 dark:text-zinc-200 dark:hover:bg-zinc-800"
      >
        {busy ? (signedIn ? "Signing out…" : "Opening sign-in…") : signedIn ? "Sign out" : "Sign in"}
      </button>
      {error ? <p className="mt-1 text-xs break-words text-red-700 dark:text-red-400">{error}</p> : null}
    </div>
  );
}
