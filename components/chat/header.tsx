"use client";

import type { ReactNode } from "react";
import type { AppInfo } from "@/lib/contracts";
import type { ConnectionState } from "@/components/realtime/use-connection";
import { AccountMenu } from "@/components/accounts/account-menu";
import { NotificationsMenu } from "@/components/notifications/notifications-menu";
import { LogoutButton } from "@/components/accounts/logout-button";
import { MenuIcon } from "@/components/ui/icons";
import { ThemeToggle } from "@/components/ui/theme-toggle";
import { ContextMeter } from "./context-meter";
import { ExportMenu } from "./export-menu";
import { ShareDialog } from "@/components/share/share-dialog";
import { MembersDialog } from "@/components/members/members-dialog";
import type { LastTurn } from "./last-turn";
import { TurnBudgetMeter, type TurnSpend } from "@/components/budgets/turn-spend";
import { ToolServers } from "./tool-servers";
import { InstructionsDialog } from "./instructions-dialog";
import { useModels } from "@/components/catalog/use-models";

/** The header's title when no chat is open (or its title is not known). */
const APP_TITLE = "Delegate";

export interface HeaderProps {
  /** The open chat's title from the chat list, which follows renames; null until it has it. */
  title: string | null;
  /** The title the server rendered (the chat's, or the app's), shown until then. */
  serverTitle?: ReactNode;
  /** The open chat, if any (its export menu). */
  sessionId?: string | null;
  /** Its last finished turn (the context meter). */
  lastTurn?: LastTurn | null;
  /** Its running turn's spend against the turn's budget, when it has one. */
  turnSpend?: TurnSpend | null;
  info: AppInfo | null;
  connection: ConnectionState;
  sidebarOpen: boolean;
  onOpenSidebar: () => void;
}

/** One empty list, so the menu is not handed a new one on every render. */
const NONE: never[] = [];

export function Header({ title, serverTitle, sessionId, lastTurn, turnSpend, info, connection, sidebarOpen, onOpenSidebar }: HeaderProps) {
  // With a choice of models, the composer's picker names the chat's; the header's label would be the default's.
  const choice = (useModels()?.models.length ?? 0) > 1;
  // On a phone the title has the first row and the chat's controls wrap below it: side by
  // side they are wider than the screen.
  return (
    <header className="flex min-h-12 shrink-0 flex-wrap items-center gap-x-2 gap-y-1 border-b border-zinc-200 px-2 py-1 sm:h-12 sm:flex-nowrap sm:px-4 sm:py-0 dark:border-zinc-800">
      <button
        type="button"
        onClick={onOpenSidebar}
        aria-label="Open chats"
        aria-expanded={sidebarOpen}
        aria-controls="session-sidebar"
        className="rounded-md p-2 text-zinc-600 hover:bg-zinc-100 md:hidden dark:text-zinc-300 dark:hover:bg-zinc-800"
      >
        <MenuIcon />
      </button>
      <h1 className="min-w-0 flex-1 basis-[calc(100%-3rem)] truncate text-sm font-medium text-zinc-800 sm:basis-auto dark:text-zinc-200">
        {title ?? serverTitle ?? APP_TITLE}
      </h1>
      {connection === "connecting" || connection === "reconnecting" ? (
        <span role="status" className="flex items-center gap-1.5 text-xs text-amber-700 dark:text-amber-400">
          <span className="size-1.5 animate-pulse rounded-full bg-current" aria-hidden="true" />
          {connection === "reconnecting" ? "Reconnecting…" : "Connecting…"}
        </span>
      ) : null}
      {info ? (
        <div className="flex min-w-0 items-center gap-2">
          {info.demo || choice ? null : (
            <span className="hidden truncate text-xs text-zinc-500 sm:inline dark:text-zinc-400" title="Model">
              {info.modelLabel}
            </span>
          )}
          {info.demo ? (
            <span
              data-testid="demo-badge"
              title="No model is configured: answers come from a deterministic offline demo model."
              className="shrink-0 rounded-full border border-amber-300 bg-amber-50 px-2 py-0.5 text-[11px] font-medium whitespace-nowrap text-amber-800 dark:border-amber-800 dark:bg-amber-950/60 dark:text-amber-300"
            >
              Offline demo model
            </span>
          ) : null}
        </div>
      ) : null}
      {info?.mcpServers?.length || info?.remoteAgents?.length ? (
        <ToolServers servers={info.mcpServers ?? NONE} remoteAgents={info.remoteAgents ?? NONE} />
      ) : null}
      {turnSpend ? <TurnBudgetMeter spend={turnSpend} /> : null}
      {lastTurn && info?.contextTokens ? <ContextMeter last={lastTurn} budget={info.contextTokens} /> : null}
      {sessionId ? <InstructionsDialog sessionId={sessionId} /> : null}
      {sessionId && info?.members ? <MembersDialog sessionId={sessionId} /> : null}
      {sessionId ? <ShareDialog sessionId={sessionId} /> : null}
      {sessionId ? <ExportMenu sessionId={sessionId} /> : null}
      <NotificationsMenu />
      <ThemeToggle />
      {info?.passwordProtected ? <LogoutButton /> : null}
      <AccountMenu />
    </header>
  );
}
