"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import { TYPING_EVERY_MS, TYPING_STALE_MS, type MemberTypingNotice } from "@/lib/contracts";
import { getSocket, request } from "@/components/realtime/socket";

/**
 * "Ana is typing…": who else in the chat is writing a prompt (each stale after
 * TYPING_STALE_MS without another word), and `typed`, which tells the others that this
 * person is, at most every TYPING_EVERY_MS. `me` is left out of what is shown.
 */
export function useTyping(sessionId: string, me: string | undefined, enabled: boolean): { typing: string[]; typed: () => void } {
  const [typing, setTyping] = useState<Map<string, { name: string; until: number }>>(new Map());
  const last = useRef(0);

  useEffect(() => {
    const socket = getSocket();
    setTyping(new Map());
    const onTyping = (notice: MemberTypingNotice) => {
      if (notice.sessionId !== sessionId || notice.accountId === me) return;
      setTyping((current) => new Map(current).set(notice.accountId, { name: notice.name, until: Date.now() + TYPING_STALE_MS }));
    };
    socket.on("member:typing", onTyping);
    return () => {
      socket.off("member:typing", onTyping);
    };
  }, [sessionId, me]);

  // Drops the stale ones once they go stale.
  useEffect(() => {
    if (typing.size === 0) return;
    const next = Math.min(...[...typing.values()].map((t) => t.until));
    const timer = setTimeout(
      () => setTyping((current) => new Map([...current].filter(([, t]) => t.until > Date.now()))),
      Math.max(0, next - Date.now()) + 50,
    );
    return () => clearTimeout(timer);
  }, [typing]);

  const typed = useCallback(() => {
    if (!enabled || Date.now() - last.current < TYPING_EVERY_MS) return;
    last.current = Date.now();
    void request(getSocket(), "member:typing", { sessionId });
  }, [enabled, sessionId]);

  return { typing: [...typing.values()].map((t) => t.name), typed };
}

/** "Ana is typing…", "Ana and Ben are typing…". */
export function typingLine(names: readonly string[]): string | null {
  if (names.length === 0) return null;
  if (names.length === 1) return `${names[0]} is typing…`;
  return `${names.slice(0, -1).join(", ")} and ${names.at(-1)} are typing…`;
}
