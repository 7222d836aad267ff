"use client";

import { useCallback, useEffect, useState } from "react";
import type { AgentList } from "@/lib/contracts";
import { getSocket, request } from "@/components/realtime/socket";

/**
 * The subagent definitions a person sees (their own, shared, the operator's) and, with a
 * chat, those it turned off. Asked again after each reconnect and after every change here.
 */
export function useAgents(sessionId?: string): { list: AgentList | null; error: string | null; reload: () => Promise<void> } {
  const [list, setList] = useState<AgentList | null>(null);
  const [error, setError] = useState<string | null>(null);
  const reload = useCallback(async () => {
    const ack = await request(getSocket(), "agent:list", sessionId ? { sessionId } : {});
    if (ack.ok) {
      setList(ack.data);
      setError(null);
    } else setError(ack.message);
  }, [sessionId]);
  useEffect(() => {
    const socket = getSocket();
    const load = () => void reload();
    if (socket.connected) load();
    socket.on("connect", load);
    return () => {
      socket.off("connect", load);
    };
  }, [reload]);
  return { list, error, reload };
}
