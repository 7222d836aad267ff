"use client";

import { PeopleProvider } from "@/components/members/people-context";
import { useMemo } from "react";
import { SHARE_ROUTES, type Ack } from "@/lib/contracts";
import { MessageList } from "@/components/chat/message-list";
import { PanelActionsProvider, type PanelActions } from "@/components/subagents/panel-actions";
import { RetryLinksProvider, useRetryLinks } from "@/components/subagents/retry-links";
import { AlertIcon, SpinnerIcon } from "@/components/ui/icons";
import { ThemeToggle } from "@/components/ui/theme-toggle";
import { useSharedSession, type SharedStatus } from "./use-shared-session";

const READ_ONLY: Ack<never> = { ok: false, code: "unauthorized", message: "A shared chat is read-only." };

/**
 * A chat shared by its owner, read-only: its turns and panels (expand, audit every tool
 * call, the inspector when the owner allowed it), live while a turn runs. No composer, no
 * steer, kill, retry or approval, no sidebar, no link to anything else of the owner's.
 */
export function ShareView({ token }: { token: string }) {
  const { state, chat, status, older } = useSharedSession(token);
  const retryLinks = useRetryLinks(state.turns);
  // Names only when the owner made the link to show them (the server sends the people then, and only then).
  const people = useMemo(
    () => (chat?.people ? { sessionId: chat.sessionId, you: "viewer" as const, me: "", people: chat.people } : null),
    [chat],
  );
  const actions = useMemo<PanelActions | null>(
    () =>
      chat
        ? {
            sessionId: chat.sessionId,
            steer: async () => READ_ONLY,
            kill: async () => READ_ONLY,
            readOnly: true,
            apiBase: SHARE_ROUTES.viewerApi(token),
            inspector: chat.inspector,
          }
        : null,
    [chat, token],
  );

  const ended = status.kind === "ended" || status.kind === "not_found" || status.kind === "sign_in" || status.kind === "error";
  return (
    <div className="flex h-full flex-col">
      <header className="flex h-12 shrink-0 items-center gap-2 border-b border-zinc-200 px-2 sm:px-4 dark:border-zinc-800">
        <h1 className="min-w-0 flex-1 truncate text-sm font-medium text-zinc-800 dark:text-zinc-200">
          {!ended && chat ? chat.title : "Shared chat"}
        </h1>
        <span
          data-testid="shared-badge"
          title="You are viewing a chat someone shared with you. Nothing here can be changed."
          className="shrink-0 rounded-full border border-sky-300 bg-sky-50 px-2 py-0.5 text-[11px] font-medium whitespace-nowrap text-sky-800 dark:border-sky-800 dark:bg-sky-950/60 dark:text-sky-300"
        >
          Shared · read-only
        </span>
        <ThemeToggle />
      </header>
      {ended ? (
        <Ended status={status} token={token} />
      ) : status.kind === "loading" || !actions ? (
        <div className="flex flex-1 items-center justify-center gap-2 text-sm text-zinc-500 dark:text-zinc-400" role="status">
          <SpinnerIcon /> Loading shared chat…
        </div>
      ) : state.turns.length === 0 ? (
        <p className="flex flex-1 items-center justify-center text-sm text-zinc-500 dark:text-zinc-400">This chat has no messages yet.</p>
      ) : (
        <PeopleProvider members={people}>
          <PanelActionsProvider value={actions}>
            <RetryLinksProvider value={retryLinks}>
              <MessageList turns={state.turns} pending={[]} older={older} />
            </RetryLinksProvider>
          </PanelActionsProvider>
        </PeopleProvider>
      )}
    </div>
  );
}

function Ended({ status, token }: { status: SharedStatus; token: string }) {
  const text =
    status.kind === "ended"
      ? status.reason === "revoked"
        ? { title: "This share link was revoked.", body: "The owner stopped sharing this chat." }
        : status.reason === "expired"
          ? { title: "This share link has expired.", body: "Ask the owner for a new link." }
          : { title: "This chat was deleted.", body: "There is nothing left to show." }
      : status.kind === "sign_in"
        ? { title: "Sign in to view this shared chat.", body: "The owner shared it with the people who can sign in here." }
        : status.kind === "error"
          ? { title: "This shared chat could not be opened.", body: status.message }
          : { title: "This shared chat does not exist.", body: "The link is wrong, or it was revoked or has expired." };
  return (
    <div role="alert" data-testid="share-ended" className="flex flex-1 flex-col items-center justify-center gap-3 px-4 text-center">
      <AlertIcon size={22} className="text-zinc-400" />
      <p className="text-base font-medium text-zinc-800 dark:text-zinc-200">{text.title}</p>
      <p className="max-w-md text-sm text-zinc-600 dark:text-zinc-400">{text.body}</p>
      {status.kind === "sign_in" ? (
        <a
          href={`/login?next=${encodeURIComponent(SHARE_ROUTES.page(token))}`}
          className="rounded-md border border-zinc-300 px-3 py-1.5 text-sm hover:bg-zinc-100 dark:border-zinc-700 dark:hover:bg-zinc-800"
        >
          Sign in
        </a>
      ) : null}
    </div>
  );
}
