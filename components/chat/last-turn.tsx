"use client";

import { createContext, useContext, useEffect } from "react";

/**
 * The open chat's last finished turn, told by the chat view to the header above it (the
 * context meter reads that turn's last master request). A setter in context, because the
 * two are siblings in the shell.
 */
export interface LastTurn {
  sessionId: string;
  turnId: string;
}

export const LastTurnContext = createContext<(turn: LastTurn | null) => void>(() => undefined);

export function useReportLastTurn(sessionId: string, turnId: string | undefined): void {
  const report = useContext(LastTurnContext);
  useEffect(() => {
    report(turnId ? { sessionId, turnId } : null);
  }, [report, sessionId, turnId]);
  useEffect(() => () => report(null), [report]);
}
