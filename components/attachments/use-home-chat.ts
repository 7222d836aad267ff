"use client";

import { useCallback, useRef } from "react";
import type { Ack, SessionSummary } from "@/lib/contracts";

/**
 * The chat the home page's first send creates. When that send stops short (a held file was
 * refused on upload) the chat already exists; the next try uses it, so retries leave no
 * trail of empty chats behind.
 */
export function useHomeChat(create: () => Promise<Ack<SessionSummary>>): () => Promise<Ack<SessionSummary>> {
  const created = useRef<Ack<SessionSummary> | null>(null);
  return useCallback(async () => {
    if (created.current?.ok) return created.current;
    const ack = await create();
    if (ack.ok) created.current = ack;
    return ack;
  }, [create]);
}
