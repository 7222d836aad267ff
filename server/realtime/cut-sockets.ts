import type { AccountServiceDeps } from "@/server/accounts/account-service";
import { cutShareViewers } from "@/server/share/share-socket";
import type { AppSockets } from "./app-sockets";
import { sessionRoom, userRoom, type AppServer } from "./types";

/**
 * A sign-in that ended (a logout, a revoked session, a disabled account) takes its open
 * sockets with it: a copy of the cookie must stop working, and so must a socket it opened.
 * In a cluster those sockets may be on any process, so they are reached through rooms the
 * adapter carries; alone, this process's sockets are looked through.
 */

/** Cluster: rooms to reach one login's or one sign-in session's sockets on every process. */
const authRoom = (session: string) => `auth:${session}`;
const signInRoom = (signInSessionId: string) => `signin:${signInSessionId}`;

/** Cluster: each socket joins the rooms its sign-in is reached by. */
export function joinSignInRooms(io: AppServer): void {
  io.on("connection", (socket) => {
    if (socket.data.authSession) void socket.join(authRoom(socket.data.authSession));
    if (socket.data.signInSessionId) void socket.join(signInRoom(socket.data.signInSessionId));
  });
}

/** An APP_PASSWORD login session ended. */
export function cutLoginSockets(sockets: AppSockets, clustered: boolean, session: string): void {
  const { io, shareNs } = sockets;
  if (clustered) io.in(authRoom(session)).disconnectSockets(true);
  else for (const socket of io.of("/").sockets.values()) if (socket.data.authSession === session) socket.disconnect(true);
  if (shareNs) cutShareViewers(shareNs, (viewer) => viewer.authSession === session);
}

/** One sign-in session of an account, or all of an account's but one (`except`). */
export type AccountSockets = Parameters<AccountServiceDeps["cutSockets"]>[0];

export function cutAccountSockets(sockets: AppSockets, clustered: boolean, target: AccountSockets): void {
  const { io, shareNs } = sockets;
  if (clustered) {
    if ("signInSessionId" in target) io.in(signInRoom(target.signInSessionId)).disconnectSockets(true);
    else if (target.except) io.in(userRoom(target.accountId)).except(signInRoom(target.except)).disconnectSockets(true);
    else io.in(userRoom(target.accountId)).disconnectSockets(true);
    return;
  }
  for (const socket of io.of("/").sockets.values()) {
    const hit =
      "signInSessionId" in target
        ? socket.data.signInSessionId === target.signInSessionId
        : socket.data.userId === target.accountId && (!target.except || socket.data.signInSessionId !== target.except);
    if (hit) socket.disconnect(true);
  }
  if (shareNs) {
    cutShareViewers(shareNs, (viewer) =>
      "signInSessionId" in target
        ? viewer.signInSessionId === target.signInSessionId
        : viewer.accountId === target.accountId && (!target.except || viewer.signInSessionId !== target.except),
    );
  }
}

/**
 * A member removed from a chat: every socket of theirs leaves the chat's room, so nothing
 * more of it reaches them, and is told to close its view. Through the adapter, both reach
 * their sockets on every process (their own room names them everywhere); the next command
 * they send is refused by the chat's gate, which reads the members afresh.
 */
export function cutMember(sockets: Pick<AppSockets, "io">, sessionId: string, accountId: string): void {
  sockets.io.in(userRoom(accountId)).socketsLeave(sessionRoom(sessionId));
  sockets.io.to(userRoom(accountId)).emit("session:access-lost", { sessionId });
}
