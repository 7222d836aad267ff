import type { Server, Socket } from "socket.io";
import type { Ack, ClientToServerEvents, ServerToClientEvents, SocketData } from "@/lib/contracts";
import type { ClusterEvents } from "@/server/cluster/protocol";

/** Inter-server events: what app processes ask each other with REDIS_URL (server/cluster/protocol.ts). */
export type AppServer = Server<ClientToServerEvents, ServerToClientEvents, ClusterEvents, SocketData>;
export type AppSocket = Socket<ClientToServerEvents, ServerToClientEvents, ClusterEvents, SocketData>;

export type CommandName = keyof ClientToServerEvents;
export type CommandInput<K extends CommandName> = Parameters<ClientToServerEvents[K]>[0];
export type CommandResult<K extends CommandName> = Parameters<Parameters<ClientToServerEvents[K]>[1]>[0] extends Ack<infer T> ? T : never;

export const sessionRoom = (sessionId: string) => `session:${sessionId}`;
export const userRoom = (userId: string) => `user:${userId}`;
