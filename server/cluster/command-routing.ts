import type { AppServer } from "@/server/realtime/types";
import type { LeaseStore } from "./lease";
import { ANSWER_TIMEOUT_MS, askOwner, heldElsewhere } from "./peer-requests";
import type { RoutedAnswer, RoutedCommand } from "./protocol";

/**
 * Where a command for a chat's running turn goes when the turn may run on another
 * process: the chat's lease names its owner, which gets the command and answers it.
 */
export interface RoutingDeps {
  leases: LeaseStore;
  instanceId: string;
  /** The Socket.IO server, once the cluster is bound to it (nothing to route through before). */
  io: () => AppServer | undefined;
}

/** The owner's answer; `handled: false` when no other live process runs a turn in this chat. */
export async function routeToOwner(deps: RoutingDeps, sessionId: string, command: RoutedCommand): Promise<RoutedAnswer> {
  const lease = await deps.leases.get(sessionId);
  const io = deps.io();
  if (!lease || !heldElsewhere(lease, deps.instanceId) || !io) return { handled: false };
  return askOwner(io, lease.instanceId!, sessionId, command);
}

/**
 * Before a chat is deleted here: a turn another process runs in it is stopped there, and
 * this waits (a few seconds at most) until that process has stored it and let go.
 */
export async function stopTurnElsewhere(deps: RoutingDeps, sessionId: string): Promise<void> {
  const lease = await deps.leases.get(sessionId);
  if (!lease?.turnId || !heldElsewhere(lease, deps.instanceId)) return;
  await routeToOwner(deps, sessionId, { kind: "cancel", turnId: lease.turnId });
  const deadline = Date.now() + ANSWER_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const now = await deps.leases.get(sessionId);
    if (!now || !heldElsewhere(now, deps.instanceId)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}
