"use client";

import { useCallback, useEffect, useRef, useState, type ReactNode } from "react";
import { ACCOUNT_ROUTES, type AdminAccountView, type ResetLink } from "@/lib/contracts/account";
import { CopyButton } from "@/components/ui/copy-button";
import { fetchList, post } from "./account-api";
import { DANGER_BUTTON, FormError, SECONDARY_BUTTON } from "./fields";
import { Section, When } from "./page-frame";
import { AdminQuotaForm } from "./admin-quota";
import { QuotaSummary } from "./quota-summary";

const NUMBER = new Intl.NumberFormat("en-GB");
const COST = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD", minimumFractionDigits: 2, maximumFractionDigits: 4 });

function plural(n: number, one: string, many = `${one}s`): string {
  return `${NUMBER.format(n)} ${n === 1 ? one : many}`;
}

/** The admin's accounts: usage, disable/enable, a one-time reset link, delete (confirmed). */
export function AdminAccounts({ selfId }: { selfId: string }) {
  const [accounts, setAccounts] = useState<AdminAccountView[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(async () => {
    const result = await fetchList<AdminAccountView>(ACCOUNT_ROUTES.adminAccounts);
    if (result.ok) {
      setAccounts(result.data);
      setError(null);
    } else setError(`Could not load the accounts: ${result.message}`);
  }, []);
  useEffect(() => {
    void load();
  }, [load]);

  return (
    <Section
      title="Accounts"
      description="Usage counts every chat, turn and token stored for the account; cost uses the configured model prices."
      testId="admin-accounts"
    >
      <FormError message={error} />
      {accounts === null ? (
        error ? null : (
          <p role="status" className="text-sm text-zinc-600 dark:text-zinc-400">
            Loading…
          </p>
        )
      ) : (
        <ul className="divide-y divide-zinc-200 rounded-lg border border-zinc-200 dark:divide-zinc-800 dark:border-zinc-800">
          {accounts.map((account) => (
            <AccountRow key={account.id} account={account} self={account.id === selfId} onChanged={load} onError={setError} />
          ))}
        </ul>
      )}
    </Section>
  );
}

function AccountRow({
  account,
  self,
  onChanged,
  onError,
}: {
  account: AdminAccountView;
  self: boolean;
  onChanged: () => Promise<void>;
  onError: (m: string) => void;
}) {
  const [pending, setPending] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [resetUrl, setResetUrl] = useState<string | null>(null);
  const [editingQuota, setEditingQuota] = useState(false);
  const name = account.displayName || account.email;
  const { usage } = account;

  const act = async (path: string, body: unknown, failure: string) => {
    setPending(true);
    const result = await post(path, body);
    setPending(false);
    if (!result.ok) {
      onError(`${failure}: ${result.message}`);
      return null;
    }
    return result;
  };
  const toggle = async () => {
    if (
      await act(
        ACCOUNT_ROUTES.adminDisable(account.id),
        { disabled: !account.disabled },
        `Could not ${account.disabled ? "enable" : "disable"} ${name}`,
      )
    )
      await onChanged();
  };
  const remove = async () => {
    if (await act(ACCOUNT_ROUTES.adminDelete(account.id), {}, `Could not delete ${name}`)) {
      setConfirming(false);
      await onChanged();
    }
  };
  const resetLink = async () => {
    setPending(true);
    const result = await post<ResetLink>(ACCOUNT_ROUTES.adminResetLink(account.id));
    setPending(false);
    if (result.ok && result.data.url) setResetUrl(result.data.url);
    else onError(`Could not make a reset link for ${name}: ${result.ok ? "the answer had no link" : result.message}`);
  };

  return (
    <li data-testid="admin-account" data-email={account.email} data-disabled={account.disabled} className="space-y-2 px-3 py-3 text-sm">
      <div className="flex flex-wrap items-start gap-x-3 gap-y-1">
        <div className="min-w-0 flex-1">
          <p className="font-medium break-words">
            {account.displayName || "—"}
            {account.role === "admin" ? <Badge tone="sky">Admin</Badge> : null}
            {account.disabled ? <Badge tone="red">Disabled</Badge> : null}
            {self ? <Badge tone="zinc">You</Badge> : null}
          </p>
          <p className="break-all text-zinc-600 dark:text-zinc-400">{account.email}</p>
        </div>
        {self ? null : (
          <div className="flex flex-wrap gap-2">
            <button type="button" data-testid="admin-toggle" disabled={pending} onClick={() => void toggle()} className={SECONDARY_BUTTON}>
              {account.disabled ? "Enable" : "Disable"}
            </button>
            <button
              type="button"
              data-testid="admin-reset-link"
              disabled={pending}
              onClick={() => void resetLink()}
              className={SECONDARY_BUTTON}
            >
              Reset link
            </button>
            <button
              type="button"
              data-testid="admin-delete"
              disabled={pending}
              onClick={() => setConfirming(true)}
              className={DANGER_BUTTON}
            >
              Delete
            </button>
          </div>
        )}
      </div>
      <dl className="grid grid-cols-2 gap-x-4 gap-y-1 text-xs text-zinc-700 sm:grid-cols-5 dark:text-zinc-300" data-testid="admin-usage">
        <Stat label="Chats" value={NUMBER.format(usage.chats)} />
        <Stat label="Turns" value={NUMBER.format(usage.turns)} />
        <Stat label="Tokens" value={NUMBER.format(usage.tokens)} />
        <Stat label="Cost" value={COST.format(usage.costUsd)} />
        <Stat label="Last active" value={<When iso={usage.lastActiveAt} empty="Never" />} />
      </dl>
      {account.quota ? (
        <div className="flex flex-wrap items-start gap-2">
          <div className="min-w-0 flex-1">
            <QuotaSummary quota={account.quota} testId="admin-quota" />
          </div>
          {editingQuota ? null : (
            <button type="button" data-testid="admin-edit-quota" onClick={() => setEditingQuota(true)} className={SECONDARY_BUTTON}>
              Edit quota
            </button>
          )}
        </div>
      ) : null}
      {editingQuota ? (
        <AdminQuotaForm
          accountId={account.id}
          name={name}
          quota={account.quota}
          onCancel={() => setEditingQuota(false)}
          onSaved={() => {
            setEditingQuota(false);
            void onChanged();
          }}
        />
      ) : null}
      {resetUrl ? (
        <div
          data-testid="admin-reset-url"
          className="flex flex-wrap items-center gap-2 rounded-md bg-zinc-100 px-2 py-1.5 text-xs dark:bg-zinc-800"
        >
          <span className="w-full text-zinc-700 dark:text-zinc-300">One-time reset link for {name}, valid 24 hours:</span>
          <code className="min-w-0 flex-1 break-all">{resetUrl}</code>
          <CopyButton text={resetUrl} label="Copy reset link" showLabel />
        </div>
      ) : null}
      {confirming ? (
        <DeleteConfirm
          name={name}
          email={account.email}
          chats={usage.chats}
          turns={usage.turns}
          pending={pending}
          onCancel={() => setConfirming(false)}
          onConfirm={() => void remove()}
        />
      ) : null}
    </li>
  );
}

/** Names the account and what goes with it; Escape or Cancel keeps everything. */
function DeleteConfirm(props: {
  name: string;
  email: string;
  chats: number;
  turns: number;
  pending: boolean;
  onCancel: () => void;
  onConfirm: () => void;
}) {
  const cancel = useRef<HTMLButtonElement>(null);
  const { onCancel } = props;
  useEffect(() => {
    cancel.current?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== "Escape") return;
      e.preventDefault();
      onCancel();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [onCancel]);
  return (
    <div
      role="alertdialog"
      aria-labelledby="delete-title"
      data-testid="admin-delete-confirm"
      className="space-y-2 rounded-md border border-red-200 bg-red-50 p-3 text-red-900 dark:border-red-900/70 dark:bg-red-950/40 dark:text-red-200"
    >
      <p id="delete-title" className="font-medium">
        Delete {props.name} ({props.email})?
      </p>
      <p>
        This removes the account, its {plural(props.chats, "chat")} with their {plural(props.turns, "turn")} and every subagent record in
        them, its sign-ins and its links. It cannot be undone.
      </p>
      <div className="flex flex-wrap gap-2">
        <button
          type="button"
          data-testid="admin-delete-confirm-button"
          disabled={props.pending}
          onClick={props.onConfirm}
          className="rounded-md bg-red-700 px-3 py-1.5 text-sm font-medium text-white hover:bg-red-800 disabled:opacity-50"
        >
          Delete account and chats
        </button>
        <button ref={cancel} type="button" onClick={props.onCancel} className={SECONDARY_BUTTON}>
          Cancel
        </button>
      </div>
    </div>
  );
}

function Stat({ label, value }: { label: string; value: ReactNode }) {
  return (
    <div className="min-w-0">
      <dt className="text-zinc-600 dark:text-zinc-400">{label}</dt>
      <dd className="font-medium tabular-nums">{value}</dd>
    </div>
  );
}

const TONES = {
  sky: "bg-sky-100 text-sky-900 dark:bg-sky-950 dark:text-sky-200",
  red: "bg-red-100 text-red-900 dark:bg-red-950 dark:text-red-200",
  zinc: "bg-zinc-200 text-zinc-800 dark:bg-zinc-800 dark:text-zinc-200",
} as const;

function Badge({ tone, children }: { tone: keyof typeof TONES; children: ReactNode }) {
  return (
    <span className={`ml-2 inline-block rounded-full px-2 whitespace-nowrap py-0.5 text-xs font-medium ${TONES[tone]}`}>{children}</span>
  );
}
