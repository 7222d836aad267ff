"use client";

import { useEffect, useRef } from "react";
import type { SessionEvent, SessionSummary } from "@/lib/contracts";
import { NoticeTracker } from "@/lib/notifications/notice";
import { notificationOf, wants } from "@/lib/notifications/notification-text";
import { getSocket } from "@/components/realtime/socket";
import { currentNotifyLevel, useNotifyLevel } from "./notify-level";
import { notificationWorker, serviceWorkerSupported, showThroughWorker } from "./service-worker";

/**
 * Notifies from the page itself while its tab is hidden: each notice of a chat this page
 * follows (the open chat's events reach it) is shown through the service worker, worded
 * and tagged as the server's push of the same moment, so the two collapse into one. A
 * seen tab needs no notification, and a closed one gets the push. Renders nothing.
 */
export function ChatNotifications({ sessions }: { sessions: readonly SessionSummary[] | null }) {
  // Read through the store so the setting is fetched while the page is open.
  useNotifyLevel();
  const titles = useRef(new Map<string, string>());
  useEffect(() => {
    titles.current = new Map((sessions ?? []).map((s) => [s.sessionId, s.title]));
  }, [sessions]);

  useEffect(() => {
    if (!serviceWorkerSupported()) return;
    void notificationWorker();
    const tracker = new NoticeTracker();
    const socket = getSocket();
    const onEvent = (event: SessionEvent) => {
      const notice = tracker.observe(event);
      const level = currentNotifyLevel();
      if (!notice || !level || !wants(level, notice.kind)) return;
      if (document.visibilityState !== "hidden" || Notification.permission !== "granted") return;
      const title = titles.current.get(event.sessionId) ?? "";
      void showThroughWorker(notificationOf(event.sessionId, title, notice)).catch(() => undefined);
    };
    socket.on("agent:event", onEvent);
    return () => {
      socket.off("agent:event", onEvent);
    };
  }, []);
  return null;
}
