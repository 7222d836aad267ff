"use client";

import { useCallback, useEffect, useRef, useState } from "react";

export interface QueuedPrompt {
  /** The text waiting for the running turn to end; null when nothing waits. */
  text: string | null;
  /** Queues `text`, replacing what waited before (one message per chat is enough). */
  queue: (text: string) => void;
  cancel: () => void;
}

/**
 * One prompt waiting in this tab for the chat's running turn to end, then sent once.
 * It lives in the tab's memory only: a closed tab sends nothing. A send refused because
 * another turn started first (another member's queued prompt won) leaves it queued for the
 * end of that turn; any other outcome ends the wait (a refused prompt shows with its error).
 */
export function useQueuedPrompt(sessionId: string, running: boolean, send: (text: string) => Promise<boolean | "busy">): QueuedPrompt {
  // Keyed by chat, so a prompt queued in one chat is never sent in the next one opened.
  const [queued, setQueued] = useState<{ sessionId: string; text: string } | null>(null);
  const text = queued?.sessionId === sessionId ? queued.text : null;
  const wasRunning = useRef(running);
  const inFlight = useRef(false);

  useEffect(() => {
    const ended = wasRunning.current && !running;
    wasRunning.current = running;
    if (!ended || text === null || inFlight.current) return;
    inFlight.current = true;
    void send(text).then((outcome) => {
      inFlight.current = false;
      if (outcome !== "busy") setQueued((current) => (current?.text === text ? null : current));
    });
  }, [running, text, send]);

  const queue = useCallback((next: string) => setQueued({ sessionId, text: next }), [sessionId]);
  const cancel = useCallback(() => setQueued(null), []);
  return { text, queue, cancel };
}
