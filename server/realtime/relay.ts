import { SESSION_PAGE_SIZE, type SessionEvent } from "@/lib/contracts";
import type { Logger } from "@/lib/log";
import type { ChatStore } from "@/server/data/store";
import { viewerEvent } from "@/server/share/viewer-view";
import { namedShareRoom } from "@/server/share/share-socket";
import type { AppSockets } from "./app-sockets";
import { sessionRoom, userRoom } from "./types";

/**
 * Each event of a chat to its viewers: the chat's room, then its share viewers. In a
 * cluster this process's viewers only: the other processes read the event from the chat's
 * stream and relay it to theirs.
 */
export function eventRelay(sockets: AppSockets, clustered: boolean): (event: SessionEvent) => void {
  return (event) => {
    const room = sessionRoom(event.sessionId);
    if (clustered) sockets.io.local.to(room).emit("agent:event", event);
    else sockets.io.to(room).emit("agent:event", event);
    // Share viewers have their own namespace, on this process. Only when the room has one:
    // emitting encodes the packet, and almost every chat has no share viewer.
    const shareNs = sockets.shareNs;
    if (shareNs?.adapter.rooms.has(room)) shareNs.local.to(room).emit("agent:event", viewerEvent(event));
    const named = namedShareRoom(event.sessionId);
    if (shareNs?.adapter.rooms.has(named)) shareNs.local.to(named).emit("agent:event", event);
  };
}

/** Every tab of one person learns that their session list changed. */
export function sessionListNotifier(
  sockets: AppSockets,
  store: Pick<ChatStore, "listSessionPage">,
  log?: Pick<Logger, "warn">,
): (userId: string) => void {
  return (userId) =>
    void store
      // The first page only: a person with 10,000 chats is not sent all of them on every title change.
      .listSessionPage(userId, SESSION_PAGE_SIZE)
      .then((page) => sockets.io.to(userRoom(userId)).emit("sessions:changed", page.sessions))
      .catch((error: unknown) => log?.warn("could not send the session list", { error: String(error) }));
}
