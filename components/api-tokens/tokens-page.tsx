"use client";

import { useState, type FormEvent } from "react";
import type { ApiToken } from "@/lib/contracts/api-token";
import { PageFrame, Section } from "@/components/accounts/page-frame";
import { DANGER_BUTTON, INPUT_CLASS, PRIMARY_BUTTON, SECONDARY_BUTTON } from "@/components/accounts/fields";
import { CopyButton } from "@/components/ui/copy-button";
import { useApiTokens } from "./use-api-tokens";

/**
 * "Tokens": the API tokens other agents call this Delegate with over A2A. A new token's
 * secret is shown once, with a copy button; the list shows names and dates only.
 */
export function TokensPage() {
  const { tokens, error, create, revoke } = useApiTokens();
  const [name, setName] = useState("");
  const [creating, setCreating] = useState(false);
  const [createError, setCreateError] = useState<string | null>(null);
  const [secret, setSecret] = useState<{ name: string; value: string } | null>(null);

  const onCreate = async (e: FormEvent) => {
    e.preventDefault();
    setCreating(true);
    const result = await create(name.trim());
    setCreating(false);
    if (!result.ok) return setCreateError(result.message);
    setCreateError(null);
    setName("");
    setSecret({ name: result.data.token.name, value: result.data.secret });
  };

  return (
    <PageFrame title="Tokens">
      <p className="text-sm text-zinc-600 dark:text-zinc-400">
        Another agent calls this Delegate over A2A with one of your tokens as <code>Authorization: Bearer dlg_…</code>. Its tasks run as
        turns in your chats, and the tools that need approval wait for you there.
      </p>
      <Section title="New token">
        <form onSubmit={onCreate} className="flex flex-wrap items-end gap-2">
          <label className="min-w-0 flex-1 text-sm">
            <span className="mb-1 block text-xs font-medium text-zinc-600 dark:text-zinc-400">Name</span>
            <input
              data-testid="token-name"
              value={name}
              onChange={(e) => setName(e.target.value)}
              maxLength={100}
              required
              placeholder="e.g. the build agent"
              className={INPUT_CLASS}
            />
          </label>
          <button type="submit" data-testid="token-create" disabled={creating || !name.trim()} className={PRIMARY_BUTTON}>
            {creating ? "Making…" : "Make token"}
          </button>
        </form>
        {createError ? (
          <p role="alert" className="text-sm text-red-700 dark:text-red-400">
            {createError}
          </p>
        ) : null}
        {secret ? (
          <div
            data-testid="token-secret"
            role="status"
            className="space-y-2 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm dark:border-amber-800 dark:bg-amber-950/40"
          >
            <p>
              The secret of <strong>{secret.name}</strong>. Copy it now: it is not shown again.
            </p>
            <div className="flex items-center gap-2">
              <code className="min-w-0 flex-1 break-all rounded bg-white px-2 py-1 font-mono text-xs dark:bg-zinc-900">{secret.value}</code>
              <CopyButton text={secret.value} label="Copy the secret" showLabel />
            </div>
            <button type="button" onClick={() => setSecret(null)} className={SECONDARY_BUTTON}>
              Done
            </button>
          </div>
        ) : null}
      </Section>
      <Section title="Your tokens">
        {error ? (
          <p role="alert" className="text-sm text-red-700 dark:text-red-400">
            {error}
          </p>
        ) : tokens === null ? (
          <p role="status" className="text-sm text-zinc-500 dark:text-zinc-400">
            Loading…
          </p>
        ) : tokens.length === 0 ? (
          <p className="text-sm text-zinc-500 dark:text-zinc-400">No tokens yet.</p>
        ) : (
          <ul
            data-testid="token-list"
            className="divide-y divide-zinc-200 rounded-md border border-zinc-200 dark:divide-zinc-800 dark:border-zinc-800"
          >
            {tokens.map((token) => (
              <TokenRow key={token.id} token={token} revoke={revoke} />
            ))}
          </ul>
        )}
      </Section>
    </PageFrame>
  );
}

function TokenRow({ token, revoke }: { token: ApiToken; revoke: (id: string) => Promise<{ ok: boolean; message?: string }> }) {
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const onRevoke = async () => {
    setBusy(true);
    const result = await revoke(token.id);
    setBusy(false);
    setConfirming(false);
    setError(result.ok ? null : (result.message ?? "Could not revoke the token."));
  };
  return (
    <li data-testid="token-row" className="flex flex-wrap items-center gap-2 px-3 py-2 text-sm">
      <div className="min-w-0 flex-1">
        <p className="truncate font-medium">{token.name}</p>
        <p className="text-xs text-zinc-500 dark:text-zinc-400">
          {token.scope} · made {day(token.createdAt)} · {token.lastUsedAt ? `last used ${day(token.lastUsedAt)}` : "never used"}
          {token.revokedAt ? ` · revoked ${day(token.revokedAt)}` : ""}
        </p>
        {error ? (
          <p role="alert" className="text-xs text-red-700 dark:text-red-400">
            {error}
          </p>
        ) : null}
      </div>
      {token.revokedAt ? null : confirming ? (
        <span className="flex items-center gap-2">
          <span className="text-xs">Callers with it are refused at once.</span>
          <button type="button" data-testid="token-revoke-confirm" onClick={onRevoke} disabled={busy} className={DANGER_BUTTON}>
            Revoke
          </button>
          <button type="button" onClick={() => setConfirming(false)} disabled={busy} className={SECONDARY_BUTTON}>
            Keep
          </button>
        </span>
      ) : (
        <button type="button" data-testid="token-revoke" onClick={() => setConfirming(true)} className={SECONDARY_BUTTON}>
          Revoke…
        </button>
      )}
    </li>
  );
}

function day(iso: string): string {
  return new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}
