"use client";

import { useId, useRef, useState, type FormEvent } from "react";
import { MEMBER_ROLES, type Ack, type ChatMembers, type ChatPerson, type MemberRole } from "@/lib/contracts";
import { PopoverMenu } from "@/components/ui/popover-menu";
import { useMembers } from "./use-members";

const ROLE_LABEL: Record<ChatPerson["role"], string> = { owner: "Owner", collaborator: "Collaborator", viewer: "Viewer" };
const ROLE_HINT: Record<MemberRole, string> = {
  viewer: "sees everything live, acts on nothing",
  collaborator: "sends prompts, steers, decides on approvals",
};

const FIELD =
  "rounded-md border border-zinc-300 bg-white px-2 py-1.5 text-sm text-zinc-900 dark:border-zinc-700 dark:bg-zinc-950 dark:text-zinc-100";
const QUIET =
  "rounded-md px-2 py-1 text-xs text-zinc-700 hover:bg-zinc-100 disabled:opacity-60 dark:text-zinc-300 dark:hover:bg-zinc-800 focus-visible:outline-2 focus-visible:outline-sky-500";

/**
 * "Members" in the chat header: who is in this chat and as what. The owner adds an
 * account by email with a role, changes a role and removes a member; everyone else reads
 * the list. Answers come from the server (its refusals shown as they are worded).
 */
export function MembersDialog({ sessionId }: { sessionId: string }) {
  const { members, viewing, add, setRole, remove } = useMembers(sessionId);
  const [open, setOpen] = useState(false);
  const [email, setEmail] = useState("");
  const [role, setNewRole] = useState<MemberRole>("collaborator");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const emailField = useRef<HTMLInputElement>(null);
  const titleId = useId();
  const owner = members?.you === "owner";
  const count = members?.people.length ?? 0;

  const run = async (action: () => Promise<Ack<ChatMembers>>) => {
    setBusy(true);
    setError(null);
    const ack = await action();
    setBusy(false);
    if (!ack.ok) setError(ack.message);
    return ack.ok;
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (await run(() => add(email.trim(), role))) setEmail("");
  };

  return (
    <PopoverMenu
      open={open}
      onOpenChange={setOpen}
      button={
        <span className="flex items-center gap-1">
          {viewing.length > 1 ? (
            <span data-testid="presence" title={`Viewing now: ${viewing.map((v) => v.name).join(", ")}`} className="flex -space-x-1.5">
              {viewing.slice(0, 4).map((v) => (
                <Initials key={v.accountId} name={v.name} />
              ))}
            </span>
          ) : null}
          Members
          {count > 1 ? (
            <span className="rounded-full bg-zinc-200 px-1.5 text-[10px] tabular-nums dark:bg-zinc-700" aria-hidden="true">
              {count}
            </span>
          ) : null}
        </span>
      }
      buttonLabel={`Members${count > 1 ? ` (${count} people)` : ""}${viewing.length > 1 ? `, viewing now: ${viewing.map((v) => v.name).join(", ")}` : ""}`}
      title="Who is in this chat"
      buttonTestId="members-button"
      buttonClassName="rounded-md px-2 py-1.5 text-xs font-medium text-zinc-700 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800"
      labelledBy={titleId}
      panelTestId="members-dialog"
      panelClassName="absolute right-0 z-30 mt-1 w-[min(28rem,calc(100vw-1rem))] space-y-3 max-sm:fixed max-sm:inset-x-2 max-sm:top-12 max-sm:w-auto rounded-lg border border-zinc-200 bg-white p-3 text-sm shadow-lg dark:border-zinc-700 dark:bg-zinc-900"
      initialFocus={owner ? emailField : undefined}
    >
      {() => (
        <div className="space-y-3">
          <h2 id={titleId} className="font-semibold text-zinc-900 dark:text-zinc-100">
            People in this chat
          </h2>
          {owner ? (
            <form onSubmit={(e) => void submit(e)} className="flex flex-wrap items-end gap-2" data-testid="member-add">
              <label className="flex min-w-0 flex-1 flex-col gap-1 text-xs text-zinc-600 dark:text-zinc-400">
                Add by email
                <input
                  ref={emailField}
                  type="email"
                  required
                  value={email}
                  onChange={(e) => setEmail(e.target.value)}
                  placeholder="ana@example.com"
                  data-testid="member-email"
                  className={`${FIELD} min-w-40`}
                />
              </label>
              <label className="flex flex-col gap-1 text-xs text-zinc-600 dark:text-zinc-400">
                Role
                <select
                  value={role}
                  onChange={(e) => setNewRole(e.target.value as MemberRole)}
                  data-testid="member-new-role"
                  className={FIELD}
                >
                  {MEMBER_ROLES.map((r) => (
                    <option key={r} value={r}>
                      {ROLE_LABEL[r]}
                    </option>
                  ))}
                </select>
              </label>
              <button
                type="submit"
                disabled={busy || email.trim() === ""}
                data-testid="member-add-submit"
                className="rounded-md bg-zinc-900 px-3 py-1.5 text-sm font-medium text-white hover:bg-zinc-700 disabled:opacity-60 dark:bg-zinc-100 dark:text-zinc-900 dark:hover:bg-zinc-300"
              >
                Add
              </button>
              <p className="w-full text-xs text-zinc-500 dark:text-zinc-400">
                A viewer {ROLE_HINT.viewer}; a collaborator {ROLE_HINT.collaborator}.
              </p>
            </form>
          ) : null}
          {members ? (
            <ul className="divide-y divide-zinc-200 dark:divide-zinc-800" data-testid="member-list">
              {members.people.map((person) => (
                <li key={person.accountId} className="flex flex-wrap items-center gap-2 py-1.5" data-testid="member-row">
                  <Initials name={person.name} />
                  <span className="min-w-0 flex-1 truncate text-zinc-900 dark:text-zinc-100" data-testid="member-name">
                    {person.name}
                  </span>
                  {owner && person.role !== "owner" ? (
                    <>
                      <select
                        aria-label={`Role of ${person.name}`}
                        value={person.role}
                        disabled={busy}
                        onChange={(e) => void run(() => setRole(person.accountId, e.target.value as MemberRole))}
                        data-testid="member-role"
                        className={FIELD}
                      >
                        {MEMBER_ROLES.map((r) => (
                          <option key={r} value={r}>
                            {ROLE_LABEL[r]}
                          </option>
                        ))}
                      </select>
                      <button
                        type="button"
                        disabled={busy}
                        onClick={() => void run(() => remove(person.accountId))}
                        aria-label={`Remove ${person.name}`}
                        data-testid="member-remove"
                        className={QUIET}
                      >
                        Remove
                      </button>
                    </>
                  ) : (
                    <span className="text-xs text-zinc-600 dark:text-zinc-400" data-testid="member-role-label">
                      {ROLE_LABEL[person.role]}
                    </span>
                  )}
                </li>
              ))}
            </ul>
          ) : (
            <p className="text-xs text-zinc-500 dark:text-zinc-400">Loading…</p>
          )}
          {members && !owner ? (
            <p className="text-xs text-zinc-500 dark:text-zinc-400">
              You are a {ROLE_LABEL[members.you].toLowerCase()} here; the owner manages who is in.
            </p>
          ) : null}
          {error ? (
            <p role="alert" className="text-xs text-red-700 dark:text-red-400">
              {error}
            </p>
          ) : null}
        </div>
      )}
    </PopoverMenu>
  );
}

/** A person's initials in a small circle, for the list and the header. */
export function Initials({ name }: { name: string }) {
  const letters =
    name
      .split(/[\s@._-]+/)
      .filter(Boolean)
      .slice(0, 2)
      .map((part) => part[0]!.toUpperCase())
      .join("") || "?";
  return (
    <span
      aria-hidden="true"
      className="flex size-6 shrink-0 items-center justify-center rounded-full bg-sky-100 text-[10px] font-semibold text-sky-800 dark:bg-sky-900 dark:text-sky-200"
    >
      {letters}
    </span>
  );
}
