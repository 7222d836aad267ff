"use client";

import { useCallback, useEffect, useState } from "react";
import type { Ack, ChatMembers, MemberRole, MembersPresence } from "@/lib/contracts";
import { getSocket, request } from "@/components/realtime/socket";

export interface MembersState {
  /** The chat's people and the reader's role; null until read (or where it cannot be). */
  members: ChatMembers | null;
  /** The server said this person may no longer open the chat (the owner removed them). */
  lost: boolean;
  /** Who has the chat open now, on any process (empty until the server says). */
  viewing: MembersPresence["viewing"];
  add(email: string, role: MemberRole): Promise<Ack<ChatMembers>>;
  setRole(accountId: string, role: MemberRole): Promise<Ack<ChatMembers>>;
  remove(accountId: string): Promise<Ack<ChatMembers>>;
}

/**
 * A chat's members as the server has them: read when the chat opens, again whenever the
 * server says they changed (or the socket reconnects), and the word that this person was
 * removed, which closes the chat's view.
 */
export function useMembers(sessionId: string): MembersState {
  const [members, setMembers] = useState<ChatMembers | null>(null);
  const [lost, setLost] = useState(false);
  const [viewing, setViewing] = useState<MembersPresence["viewing"]>([]);

  const load = useCallback(async () => {
    const ack = await request(getSocket(), "member:list", { sessionId });
    if (ack.ok) setMembers(ack.data);
  }, [sessionId]);

  useEffect(() => {
    const socket = getSocket();
    setMembers(null);
    setLost(false);
    setViewing([]);
    void load();
    const onChanged = (info: { sessionId: string }) => {
      if (info.sessionId === sessionId) void load();
    };
    const onLost = (info: { sessionId: string }) => {
      if (info.sessionId === sessionId) setLost(true);
    };
    const onConnect = () => void load();
    const onPresence = (presence: MembersPresence) => {
      if (presence.sessionId === sessionId) setViewing(presence.viewing);
    };
    socket.on("members:presence", onPresence);
    socket.on("members:changed", onChanged);
    socket.on("session:access-lost", onLost);
    socket.on("connect", onConnect);
    return () => {
      socket.off("members:changed", onChanged);
      socket.off("session:access-lost", onLost);
      socket.off("connect", onConnect);
      socket.off("members:presence", onPresence);
    };
  }, [sessionId, load]);

  const answered = useCallback((ack: Ack<ChatMembers>) => {
    if (ack.ok) setMembers(ack.data);
    return ack;
  }, []);

  return {
    members,
    lost,
    viewing,
    add: useCallback(
      async (email, role) => answered(await request(getSocket(), "member:add", { sessionId, email, role })),
      [sessionId, answered],
    ),
    setRole: useCallback(
      async (accountId, role) => answered(await request(getSocket(), "member:role", { sessionId, accountId, role })),
      [sessionId, answered],
    ),
    remove: useCallback(
      async (accountId) => answered(await request(getSocket(), "member:remove", { sessionId, accountId })),
      [sessionId, answered],
    ),
  };
}
