"use client";

import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import { MAX_SESSION_PAGE, SESSION_PAGE_SIZE, type Ack, type SessionSummary } from "@/lib/contracts";
import { appendPage, firstPage, mergeFirstPage, removeSession, upsertSession, type SessionList } from "@/lib/chat/session-list";
import { getSocket, request } from "@/components/realtime/socket";

export interface SessionsApi {
  /** Null until the first list arrives. */
  sessions: SessionSummary[] | null;
  loadError: string | null;
  create: () => Promise<Ack<SessionSummary>>;
  rename: (sessionId: string, title: string) => Promise<Ack<SessionSummary>>;
  remove: (sessionId: string) => Promise<Ack<{ sessionId: string }>>;
  /** Loads the list again (after chats from before sign-in were added to the account). */
  refresh: () => void;
  /** More chats exist below the ones loaded. */
  hasMore: boolean;
  loadingMore: boolean;
  moreError: string | null;
  /** Loads the next page (the sidebar calls it as the reader nears the bottom). */
  loadMore: () => void;
  /** A chat the list may not hold yet (opened from search): placed where it belongs. */
  remember: (session: SessionSummary) => void;
}

const SessionsContext = createContext<SessionsApi | null>(null);

/**
 * The person's sessions, a page at a time (10,000 chats must not all travel at
 * once): the first page per connection, more as the sidebar scrolls, kept current by the
 * server's `sessions:changed` push of the first page (other tabs, renames, new titles),
 * with local acks applied at once.
 */
export function SessionsProvider({ children }: { children: ReactNode }) {
  const [list, setList] = useState<SessionList | null>(null);
  const sessions = list?.sessions ?? null;
  const [loadError, setLoadError] = useState<string | null>(null);
  const [loadingMore, setLoadingMore] = useState(false);
  const [moreError, setMoreError] = useState<string | null>(null);
  const listRef = useRef(list);
  listRef.current = list;
  const loadingRef = useRef(false);
  const [generation, setGeneration] = useState(0);
  const refresh = useCallback(() => setGeneration((g) => g + 1), []);

  useEffect(() => {
    const socket = getSocket();
    let alive = true;
    const load = async () => {
      const ack = await request(socket, "session:page", { limit: SESSION_PAGE_SIZE });
      if (!alive) return;
      if (ack.ok) {
        setList(firstPage(ack.data.sessions, ack.data.next));
        setLoadError(null);
      } else {
        setLoadError(ack.message);
      }
    };
    const onChanged = (page: SessionSummary[]) => setList((held) => mergeFirstPage(held, page, SESSION_PAGE_SIZE));
    socket.on("sessions:changed", onChanged);
    socket.on("connect", load);
    if (socket.connected) void load();
    return () => {
      alive = false;
      socket.off("sessions:changed", onChanged);
      socket.off("connect", load);
    };
  }, [generation]);

  const create = useCallback(async () => {
    const ack = await request(getSocket(), "session:create", {});
    if (ack.ok) setList((held) => upsertSession(held, ack.data));
    return ack;
  }, []);

  const rename = useCallback(async (sessionId: string, title: string) => {
    const ack = await request(getSocket(), "session:rename", { sessionId, title });
    if (ack.ok) setList((held) => upsertSession(held, ack.data));
    return ack;
  }, []);

  const remove = useCallback(async (sessionId: string) => {
    const ack = await request(getSocket(), "session:delete", { sessionId });
    if (ack.ok) setList((held) => removeSession(held, sessionId));
    return ack;
  }, []);

  const loadMore = useCallback(() => {
    const next = listRef.current?.next;
    if (!next || loadingRef.current) return;
    loadingRef.current = true;
    setLoadingMore(true);
    setMoreError(null);
    void request(getSocket(), "session:page", { before: next, limit: MAX_SESSION_PAGE }).then((ack) => {
      loadingRef.current = false;
      setLoadingMore(false);
      if (!ack.ok) return setMoreError(ack.message);
      // A push meanwhile may have moved the list on: append only where this page began.
      setList((held) =>
        held && held.next?.sessionId === next.sessionId && held.next.updatedAt === next.updatedAt
          ? appendPage(held, ack.data.sessions, ack.data.next)
          : held,
      );
    });
  }, []);

  const remember = useCallback((session: SessionSummary) => {
    setList((held) => (held?.sessions.some((s) => s.sessionId === session.sessionId) ? held : upsertSession(held, session)));
  }, []);

  const hasMore = Boolean(list?.next);
  const value = useMemo(
    () => ({ sessions, loadError, create, rename, remove, refresh, hasMore, loadingMore, moreError, loadMore, remember }),
    [sessions, loadError, create, rename, remove, refresh, hasMore, loadingMore, moreError, loadMore, remember],
  );
  return <SessionsContext.Provider value={value}>{children}</SessionsContext.Provider>;
}

export function useSessions(): SessionsApi {
  const api = useContext(SessionsContext);
  if (!api) throw new Error("useSessions must be used inside <SessionsProvider>");
  return api;
}
