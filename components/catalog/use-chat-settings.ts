"use client";

import { useCallback, useEffect, useState } from "react";
import type { Ack, ChatSettings } from "@/lib/contracts";
import { getSocket, request } from "@/components/realtime/socket";

export interface ChatSettingsState {
  /** Null until the server answered. */
  settings: ChatSettings | null;
  /** Picks the chat's model (and so the person's default); on the home page, only what the first send will carry. */
  setModel(key: string): Promise<Ack<ChatSettings> | null>;
  setInstructions(text: string): Promise<Ack<ChatSettings> | null>;
}

/**
 * A chat's settings as the server keeps them (its model, its instructions), or without a
 * chat those a new one would start with. Read again after each reconnect.
 */
export function useChatSettings(sessionId: string | undefined): ChatSettingsState {
  const [settings, setSettings] = useState<ChatSettings | null>(null);
  useEffect(() => {
    const socket = getSocket();
    let alive = true;
    const load = async () => {
      const ack = await request(socket, "chat:settings", sessionId ? { sessionId } : {});
      if (alive && ack.ok) setSettings(ack.data);
    };
    if (socket.connected) void load();
    socket.on("connect", load);
    return () => {
      alive = false;
      socket.off("connect", load);
    };
  }, [sessionId]);

  const configure = useCallback(
    async (change: { model?: string; instructions?: string }) => {
      if (!sessionId) {
        setSettings((current) => ({ model: change.model ?? current?.model ?? "", instructions: current?.instructions ?? "" }));
        return null;
      }
      const ack = await request(getSocket(), "chat:configure", { sessionId, ...change });
      if (ack.ok) setSettings(ack.data);
      return ack;
    },
    [sessionId],
  );
  const setModel = useCallback((key: string) => configure({ model: key }), [configure]);
  const setInstructions = useCallback((text: string) => configure({ instructions: text }), [configure]);
  return { settings, setModel, setInstructions };
}
