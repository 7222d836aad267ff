"use client";

import { useParams, usePathname } from "next/navigation";
import { useCallback, useEffect, useState, type ReactNode } from "react";
import { ClaimBanner } from "@/components/accounts/claim-banner";
import { SessionEnded } from "@/components/accounts/session-ended";
import { OfflineBanner } from "@/components/pwa/offline-banner";
import { useAppInfo } from "@/components/realtime/use-app-info";
import { useConnection } from "@/components/realtime/use-connection";
import { Header } from "./header";
import { SessionsProvider, useSessions } from "./sessions-context";
import { LastTurnContext, type LastTurn } from "./last-turn";
import { TurnSpendContext, type TurnSpend } from "@/components/budgets/turn-spend";
import { LeavingContext } from "./shell-context";
import { Sidebar } from "./sidebar";
import { ChatNotifications } from "@/components/notifications/chat-notifications";

/**
 * The frame around every page: sessions sidebar (a drawer on phones), header, content.
 * `serverTitle`: the header's title as the server rendered it, shown until the chat list
 * (which follows renames) has it.
 */
export function AppShell({ children, serverTitle }: { children: ReactNode; serverTitle?: ReactNode }) {
  return (
    <SessionsProvider>
      <Frame serverTitle={serverTitle}>{children}</Frame>
    </SessionsProvider>
  );
}

function Frame({ children, serverTitle }: { children: ReactNode; serverTitle?: ReactNode }) {
  const params = useParams<{ id?: string }>();
  const currentSessionId = typeof params?.id === "string" ? decodeURIComponent(params.id) : null;
  const { sessions, refresh: refreshSessions } = useSessions();
  const info = useAppInfo();
  const connection = useConnection();
  const [drawerOpen, setDrawerOpen] = useState(false);
  const close = useCallback(() => setDrawerOpen(false), []);
  const pathname = usePathname();
  const [leavingFrom, setLeavingFrom] = useState<string | null>(null);
  const leaving = leavingFrom !== null && leavingFrom === pathname;
  const leave = useCallback(() => setLeavingFrom(pathname), [pathname]);
  const title = sessions?.find((s) => s.sessionId === currentSessionId)?.title ?? null;
  const [lastTurn, setLastTurn] = useState<LastTurn | null>(null);
  const meter = lastTurn && lastTurn.sessionId === currentSessionId ? lastTurn : null;
  const [turnSpend, setTurnSpend] = useState<TurnSpend | null>(null);
  const spend = turnSpend && turnSpend.sessionId === currentSessionId ? turnSpend : null;

  // Tabs and history entries name the chat, not just the app.
  useEffect(() => {
    document.title = title ? `${title} · Delegate` : "Delegate";
  }, [title]);

  return (
    <div className="flex h-dvh">
      {/* First in the tab order: past the sidebar's chats straight to the message box. */}
      <a
        href="#composer"
        onClick={(e) => {
          const box = document.getElementById("composer");
          if (!box) return;
          e.preventDefault();
          box.focus();
        }}
        className="sr-only rounded-md bg-sky-600 px-3 py-2 text-sm font-medium text-white focus:not-sr-only focus:absolute focus:top-2 focus:left-2 focus:z-50"
      >
        Skip to message box
      </a>
      <ChatNotifications sessions={sessions} />
      <Sidebar currentSessionId={currentSessionId} open={drawerOpen} onClose={close} onLeave={leave} a2aServer={info?.a2aServer ?? false} />
      <div className="flex min-w-0 flex-1 flex-col">
        <Header
          title={title}
          serverTitle={serverTitle}
          sessionId={currentSessionId}
          lastTurn={meter}
          turnSpend={spend}
          info={info}
          connection={connection}
          sidebarOpen={drawerOpen}
          onOpenSidebar={() => setDrawerOpen(true)}
        />
        {connection === "signed-out" ? <SessionEnded /> : <ClaimBanner onClaimed={refreshSessions} />}
        {connection === "signed-out" ? null : <OfflineBanner connection={connection} />}
        <main className="relative min-h-0 flex-1">
          <LastTurnContext.Provider value={setLastTurn}>
            <TurnSpendContext.Provider value={setTurnSpend}>
              <LeavingContext.Provider value={leaving}>{children}</LeavingContext.Provider>
            </TurnSpendContext.Provider>
          </LastTurnContext.Provider>
        </main>
      </div>
    </div>
  );
}
