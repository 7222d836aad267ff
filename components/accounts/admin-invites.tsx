"use client";

import { useCallback, useEffect, useId, useState, type FormEvent } from "react";
import { ACCOUNT_ROUTES, type AuthMode, type OneTimeLink } from "@/lib/contracts/account";
import { CopyButton } from "@/components/ui/copy-button";
import { fetchList, post } from "./account-api";
import { FormError, INPUT_CLASS, PRIMARY_BUTTON, SECONDARY_BUTTON } from "./fields";
import { Section, When } from "./page-frame";

const EXPIRY_CHOICES: [number, string][] = [
  [1, "1 hour"],
  [24, "1 day"],
  [72, "3 days"],
  [24 * 7, "7 days"],
  [24 * 30, "30 days"],
];

type LinkStatus = "active" | "used" | "expired";

function statusOf(link: OneTimeLink, now: number): LinkStatus {
  if (link.usedAt) return "used";
  return Date.parse(link.expiresAt) <= now ? "expired" : "active";
}

const STATUS_TEXT: Record<LinkStatus, string> = { active: "Not used yet", used: "Used", expired: "Expired" };

/** Invitation links: make one (copy it at once: its secret is shown only then), list, revoke. */
export function AdminInvites({ mode }: { mode: AuthMode }) {
  const [links, setLinks] = useState<OneTimeLink[] | null>(null);
  const [hours, setHours] = useState(72);
  const [created, setCreated] = useState<OneTimeLink | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const selectId = useId();

  const load = useCallback(async () => {
    const result = await fetchList<OneTimeLink>(ACCOUNT_ROUTES.adminInvites);
    if (result.ok) setLinks([...result.data].sort((a, b) => (a.createdAt < b.createdAt ? 1 : -1)));
    else setError(`Could not load the invitations: ${result.message}`);
  }, []);
  useEffect(() => {
    void load();
  }, [load]);

  const create = async (e: FormEvent) => {
    e.preventDefault();
    setPending(true);
    setError(null);
    const result = await post<OneTimeLink>(ACCOUNT_ROUTES.adminInvites, { expiresInHours: hours });
    setPending(false);
    if (!result.ok) {
      setError(`Could not create an invitation: ${result.message}`);
      return;
    }
    setCreated(result.data);
    await load();
  };

  const revoke = async (link: OneTimeLink) => {
    setPending(true);
    const result = await post(ACCOUNT_ROUTES.adminRevokeInvite(link.id));
    setPending(false);
    if (!result.ok) setError(`Could not revoke the invitation: ${result.message}`);
    if (created?.id === link.id) setCreated(null);
    await load();
  };

  const now = Date.now();
  return (
    <Section
      title="Invitations"
      description={
        mode === "invite"
          ? "New people join only through a link like this. Each link works once."
          : "Sign-up is open on this instance, so invitations are optional here. Each link works once."
      }
      testId="admin-invites"
    >
      <form onSubmit={create} className="flex flex-wrap items-end gap-2">
        <div className="space-y-1.5">
          <label htmlFor={selectId} className="text-sm font-medium">
            Valid for
          </label>
          <select
            id={selectId}
            data-testid="invite-expiry"
            value={hours}
            onChange={(e) => setHours(Number(e.target.value))}
            className={`${INPUT_CLASS} w-auto`}
          >
            {EXPIRY_CHOICES.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" data-testid="invite-create" disabled={pending} className={PRIMARY_BUTTON}>
          Create invitation link
        </button>
      </form>
      {created?.url ? (
        <div
          data-testid="invite-created"
          className="flex flex-wrap items-center gap-2 rounded-md bg-zinc-100 px-2 py-1.5 text-xs dark:bg-zinc-800"
        >
          <span className="w-full text-zinc-700 dark:text-zinc-300">Copy it now; it is not shown again:</span>
          <code data-testid="invite-url" className="min-w-0 flex-1 break-all">
            {created.url}
          </code>
          <CopyButton text={created.url} label="Copy invitation link" showLabel />
        </div>
      ) : null}
      <FormError message={error} />
      {links && links.length > 0 ? (
        <ul className="divide-y divide-zinc-200 rounded-lg border border-zinc-200 dark:divide-zinc-800 dark:border-zinc-800">
          {links.map((link) => {
            const status = statusOf(link, now);
            return (
              <li
                key={link.id}
                data-testid="invite"
                data-status={status}
                className="flex flex-wrap items-center gap-x-4 gap-y-1 px-3 py-2 text-sm"
              >
                <div className="min-w-0 flex-1">
                  <p className="font-medium">{STATUS_TEXT[status]}</p>
                  <p className="text-xs text-zinc-600 dark:text-zinc-400">
                    Created <When iso={link.createdAt} /> ·{" "}
                    {status === "used" ? (
                      <>
                        used <When iso={link.usedAt} />
                      </>
                    ) : (
                      <>
                        {status === "expired" ? "expired" : "expires"} <When iso={link.expiresAt} />
                      </>
                    )}
                  </p>
                </div>
                {status === "active" ? (
                  <button
                    type="button"
                    data-testid="invite-revoke"
                    disabled={pending}
                    onClick={() => void revoke(link)}
                    className={SECONDARY_BUTTON}
                  >
                    Revoke
                  </button>
                ) : null}
              </li>
            );
          })}
        </ul>
      ) : links ? (
        <p className="text-sm text-zinc-600 dark:text-zinc-400">No invitations yet.</p>
      ) : null}
    </Section>
  );
}
