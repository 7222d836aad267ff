import type { ErrorCode, RetryStarted, RunCommand } from "@/lib/contracts";
import type { MirrorSnapshot } from "@/server/sessions/drone-session";

/**
 * What app processes ask each other (Socket.IO's `serverSideEmit` through the Redis
 * adapter, every process answers). Ownership was checked by the process the person is
 * connected to; the owner of the running turn only acts on it.
 */
export type RoutedCommand = RunCommand;

export type RoutedAnswer =
  { handled: false } | { handled: true; ok: true; result?: RetryStarted } | { handled: true; ok: false; code: ErrorCode; message: string };

export interface ClusterEvents {
  "cluster:command": (
    request: { target: string; sessionId: string; command: RoutedCommand },
    reply: (answer: RoutedAnswer) => void,
  ) => void;
  "cluster:snapshot": (request: { sessionId: string }, reply: (answer: MirrorSnapshot | null) => void) => void;
  /** An account disabled or deleted: every process stops that person's turns. */
  "cluster:cancel-owner": (request: { ownerId: string }) => void;
}
