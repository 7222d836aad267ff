import type { MemberStore } from "@/server/members/member-store";
import { sessionRoom, type AppServer, type AppSocket } from "./types";
import type { Logger } from "@/lib/log";

/**
 * Who has a chat open now: the accounts with a socket in its room, on every process (the
 * adapter's `fetchSockets` asks the others over Redis), told to the room whenever someone
 * opens or leaves it. Only accounts have names, so without them nobody is listed.
 */
export function presenceAnnouncer(
  io: AppServer,
  members: Pick<MemberStore, "names">,
  log?: Pick<Logger, "warn">,
): (sessionId: string) => void {
  return (sessionId) => {
    const room = sessionRoom(sessionId);
    void (async () => {
      const sockets = await io.in(room).fetchSockets();
      const ids = [...new Set(sockets.map((s) => s.data.userId))];
      const names = await members.names(ids);
      const viewing = ids.flatMap((accountId) => {
        const name = names.get(accountId);
        return name === undefined ? [] : [{ accountId, name }];
      });
      io.to(room).emit("members:presence", { sessionId, viewing });
    })().catch((error: unknown) => log?.warn("could not tell who is viewing a chat", { error: String(error) }));
  };
}

/** The chats a socket has open (its session rooms), read before it leaves them. */
export function openChats(socket: AppSocket): string[] {
  const prefix = sessionRoom("");
  return [...socket.rooms].filter((room) => room.startsWith(prefix)).map((room) => room.slice(prefix.length));
}
