"use client";

import { useCallback, useEffect, useId, useRef, useState, type FormEvent } from "react";
import { SHARE_EXPIRIES, type ShareExpiry, type ShareLinkView } from "@/lib/contracts";
import { CopyButton } from "@/components/ui/copy-button";
import { PopoverMenu } from "@/components/ui/popover-menu";
import { createShareLink, listShareLinks, revokeShareLink } from "./share-api";

const EXPIRY_LABELS: Record<ShareExpiry, string> = { "1d": "1 day", "7d": "7 days", "30d": "30 days", never: "Never" };

const when = (iso: string) => new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });

/**
 * "Share" in the chat header: a small dialog to create a read-only link to this chat
 * (expiry, inspector, public), copy it (shown once: only its hash is stored), and see and
 * revoke the chat's links. Escape or a press outside closes it; focus returns to the button.
 * On a phone it spans the screen under the header (the button is not at the header's edge).
 */
export function ShareDialog({ sessionId }: { sessionId: string }) {
  const [open, setOpen] = useState(false);
  const first = useRef<HTMLSelectElement>(null);
  const titleId = useId();

  const [expiresIn, setExpiresIn] = useState<ShareExpiry>("7d");
  const [inspector, setInspector] = useState(false);
  const [names, setNames] = useState(false);
  const [isPublic, setIsPublic] = useState(false);
  const [links, setLinks] = useState<ShareLinkView[] | null>(null);
  const [created, setCreated] = useState<{ url: string; linkId: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const refresh = useCallback(async () => {
    try {
      setLinks(await listShareLinks(sessionId));
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  }, [sessionId]);

  useEffect(() => {
    if (!open) return;
    setCreated(null);
    setError(null);
    void refresh();
  }, [open, refresh]);

  const create = async (e: FormEvent) => {
    e.preventDefault();
    if (busy) return;
    setBusy(true);
    setError(null);
    try {
      const answer = await createShareLink(sessionId, { expiresIn, inspector, names, public: isPublic });
      setCreated({ url: `${window.location.origin}${answer.path}`, linkId: answer.link.linkId });
      await refresh();
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };

  const revoke = async (linkId: string) => {
    setError(null);
    try {
      await revokeShareLink(sessionId, linkId);
      if (created?.linkId === linkId) setCreated(null);
      await refresh();
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
  };

  const field = "rounded-md border border-zinc-300 bg-white px-2 py-1 text-sm dark:border-zinc-700 dark:bg-zinc-950";
  return (
    <PopoverMenu
      open={open}
      onOpenChange={setOpen}
      button="Share"
      title="Share this chat read-only"
      buttonTestId="share-button"
      buttonClassName="rounded-md px-2 py-1.5 text-xs font-medium text-zinc-700 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800"
      labelledBy={titleId}
      panelTestId="share-dialog"
      panelClassName="absolute right-0 z-30 mt-1 w-[min(24rem,calc(100vw-1rem))] space-y-3 max-sm:fixed max-sm:inset-x-2 max-sm:top-12 max-sm:w-auto rounded-lg border border-zinc-200 bg-white p-3 text-sm shadow-lg dark:border-zinc-700 dark:bg-zinc-900"
      initialFocus={first}
    >
      <h2 id={titleId} className="font-semibold text-zinc-900 dark:text-zinc-100">
        Share this chat, read-only
      </h2>
      <form onSubmit={create} className="space-y-2">
        <label className="flex items-center justify-between gap-2">
          <span>Expires after</span>
          <select
            ref={first}
            value={expiresIn}
            onChange={(e) => setExpiresIn(e.target.value as ShareExpiry)}
            className={field}
            data-testid="share-expiry"
          >
            {SHARE_EXPIRIES.map((x) => (
              <option key={x} value={x}>
                {EXPIRY_LABELS[x]}
              </option>
            ))}
          </select>
        </label>
        <label className="flex items-start gap-2">
          <input
            type="checkbox"
            checked={inspector}
            onChange={(e) => setInspector(e.target.checked)}
            className="mt-0.5"
            data-testid="share-inspector"
          />
          <span>Show the context inspector (every model request as sent)</span>
        </label>
        <label className="flex items-start gap-2">
          <input
            type="checkbox"
            checked={names}
            onChange={(e) => setNames(e.target.checked)}
            className="mt-0.5"
            data-testid="share-names"
          />
          <span>Show members&apos; names (who sent each prompt, who decided)</span>
        </label>
        <label className="flex items-start gap-2">
          <input
            type="checkbox"
            checked={isPublic}
            onChange={(e) => setIsPublic(e.target.checked)}
            className="mt-0.5"
            data-testid="share-public"
          />
          <span>
            Public: anyone with the link, without signing in
            <span className="block text-xs text-zinc-600 dark:text-zinc-400">
              Otherwise viewers sign in to this instance first (when it has a sign-in).
            </span>
          </span>
        </label>
        <button
          type="submit"
          disabled={busy}
          data-testid="share-create"
          className="rounded-md bg-zinc-900 px-3 py-1.5 text-sm font-medium text-white hover:bg-zinc-700 disabled:opacity-60 dark:bg-zinc-100 dark:text-zinc-900 dark:hover:bg-zinc-300"
        >
          {busy ? "Creating…" : "Create link"}
        </button>
      </form>
      {created ? (
        <div className="space-y-1 rounded-md border border-emerald-300 bg-emerald-50 p-2 dark:border-emerald-800 dark:bg-emerald-950/40">
          <div className="flex items-center gap-1">
            <input
              readOnly
              value={created.url}
              aria-label="Share link"
              data-testid="share-url"
              onFocus={(e) => e.currentTarget.select()}
              className={`${field} min-w-0 flex-1 font-mono text-xs`}
            />
            <CopyButton text={created.url} label="Copy link" showLabel />
          </div>
          <p className="text-xs text-emerald-900 dark:text-emerald-300">Copy it now: the link is shown only once.</p>
        </div>
      ) : null}
      {error ? (
        <p role="alert" className="text-xs text-red-700 dark:text-red-400">
          {error}
        </p>
      ) : null}
      <div>
        <h3 className="mb-1 text-xs font-semibold tracking-wide text-zinc-600 uppercase dark:text-zinc-400">Links to this chat</h3>
        {links === null ? (
          <p className="text-xs text-zinc-600 dark:text-zinc-400">Loading…</p>
        ) : links.length === 0 ? (
          <p className="text-xs text-zinc-600 dark:text-zinc-400">None. A link you create shows here until it is revoked or expires.</p>
        ) : (
          <ul className="max-h-48 space-y-1 overflow-y-auto" data-testid="share-links">
            {links.map((link) => (
              <li
                key={link.linkId}
                className="flex items-center gap-2 rounded-md border border-zinc-200 px-2 py-1 dark:border-zinc-800"
                data-testid="share-link-row"
              >
                <span className="min-w-0 flex-1 text-xs text-zinc-700 dark:text-zinc-300">
                  Created {when(link.createdAt)} · {link.expiresAt ? `expires ${when(link.expiresAt)}` : "never expires"}
                  <span className="block text-zinc-600 dark:text-zinc-400">
                    {link.public ? "Public" : "Sign-in needed"}
                    {link.inspector ? " · inspector" : ""}
                    {link.names ? " · names" : ""}
                  </span>
                </span>
                <button
                  type="button"
                  onClick={() => void revoke(link.linkId)}
                  data-testid="share-revoke"
                  className="rounded-md border border-red-300 px-2 py-0.5 text-xs text-red-700 hover:bg-red-50 dark:border-red-800 dark:text-red-400 dark:hover:bg-red-950/40"
                >
                  Revoke
                </button>
              </li>
            ))}
          </ul>
        )}
      </div>
    </PopoverMenu>
  );
}
