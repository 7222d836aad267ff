"use client";

import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from "react";
import type { Ack, SessionSummary } from "@/lib/contracts";
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
}

const SessionsContext = createContext<SessionsApi | null>(null);

function newestFirst(list: SessionSummary[]): SessionSummary[] {
  return [...list].sort((a, b) => (a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : 0));
}

function upsert(list: SessionSummary[] | null, item: SessionSummary): SessionSummary[] {
  return newestFirst([item, ...(list ?? []).filter((s) => s.sessionId !== item.sessionId)]);
}

/**
 * The person's sessions: loaded once per connection, then kept current by the server's
 * `sessions:changed` push (other tabs, renames, new titles), with local acks applied at once.
 */
export function SessionsProvider({ children }: { children: ReactNode }) {
  const [sessions, setSessions] = useState<SessionSummary[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [generation, setGeneration] = useState(0);
  const refresh = useCallback(() => setGeneration((g) => g + 1), []);

  useEffect(() => {
    const socket = getSocket();
    let alive = true;
    const load = async () => {
      const ack = await request(socket, "session:list", {});
      if (!alive) return;
      if (ack.ok) {
        setSessions(newestFirst(ack.data));
        setLoadError(null);
      } else {
        setLoadError(ack.message);
      }
    };
    const onChanged = (list: SessionSummary[]) => setSessions(newestFirst(list));
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
    if (ack.ok) setSessions((list) => upsert(list, ack.data));
    return ack;
  }, []);

  const rename = useCallback(async (sessionId: string, title: string) => {
    const ack = await request(getSocket(), "session:rename", { sessionId, title });
    if (ack.ok) setSessions((list) => upsert(list, ack.data));
    return ack;
  }, []);

  const remove = useCallback(async (sessionId: string) => {
    const ack = await request(getSocket(), "session:delete", { sessionId });
    if (ack.ok) setSessions((list) => (list ?? []).filter((s) => s.sessionId !== sessionId));
    return ack;
  }, []);

  const value = useMemo(() => ({ sessions, loadError, create, rename, remove, refresh }), [sessions, loadError, create, rename, remove, refresh]);
  return <SessionsContext.Provider value={value}>{children}</SessionsContext.Provider>;
}

export function useSessions(): SessionsApi {
  const api = useContext(SessionsContext);
  if (!api) throw new Error("useSessions must be used inside <SessionsProvider>");
  return api;
}
