import type { SessionEvent } from "@/lib/contracts";
import { deleteSessionData } from "@/server/data/delete-session";
import { getOwnedSession } from "@/server/data/sessions";
import { DroneSession } from "./drone-session";
import type { TurnRunner } from "./turn-runner";

/**
 * The open DroneSessions of this process, one per chat, loaded on first use. Every
 * lookup checks ownership first, so a caller can only reach sessions they own.
 */
export interface SessionRegistryDeps {
  runner: TurnRunner;
  relay: (event: SessionEvent) => void;
  onTitleChanged: (ownerId: string) => void;
  log?: { warn(msg: string, meta?: object): void; error(msg: string, meta?: object): void };
  flushMs?: number;
}

const IDLE_EVICT_MS = 15 * 60_000;

export class SessionRegistry {
  private readonly open = new Map<string, Promise<DroneSession>>();
  private readonly lastUsed = new Map<string, number>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly deps: SessionRegistryDeps) {
    this.sweeper = setInterval(() => this.evictIdle(), 60_000);
    this.sweeper.unref();
  }

  async get(ownerId: string, sessionId: string): Promise<DroneSession> {
    const summary = await getOwnedSession(ownerId, sessionId);
    this.lastUsed.set(sessionId, Date.now());
    let pending = this.open.get(sessionId);
    if (!pending) {
      pending = DroneSession.open({
        sessionId,
        title: summary.title,
        runner: this.deps.runner,
        relay: this.deps.relay,
        onTitleChanged: () => this.deps.onTitleChanged(ownerId),
        log: this.deps.log,
        flushMs: this.deps.flushMs,
      });
      this.open.set(sessionId, pending);
      pending.catch(() => this.open.delete(sessionId));
    }
    const session = await pending;
    return session;
  }

  /** The open session, if loaded, without an ownership check (for internal use). */
  async peek(sessionId: string): Promise<DroneSession | undefined> {
    return this.open.get(sessionId);
  }

  async remove(ownerId: string, sessionId: string): Promise<void> {
    const session = await this.get(ownerId, sessionId);
    if (session.runningTurnId) session.cancel(session.runningTurnId);
    await session.settled();
    this.open.delete(sessionId);
    this.lastUsed.delete(sessionId);
    await deleteSessionData(ownerId, sessionId);
  }

  /** Cancels running turns and waits until everything is written. */
  async shutdown(): Promise<void> {
    clearInterval(this.sweeper);
    const sessions = await Promise.all([...this.open.values()].map((p) => p.catch(() => undefined)));
    for (const session of sessions) if (session?.runningTurnId) session.cancel(session.runningTurnId);
    await Promise.all(sessions.map((s) => s?.settled()));
  }

  /**
   * Forgets sessions unused for `idleMs` with no turn running: their turns are in MongoDB,
   * and a browser that comes back gets a snapshot. Runs every minute.
   */
  evictIdle(idleMs = IDLE_EVICT_MS): void {
    const now = Date.now();
    for (const [sessionId, pending] of this.open) {
      if (now - (this.lastUsed.get(sessionId) ?? 0) < idleMs) continue;
      void pending.then((session) => {
        if (session.isIdle) {
          this.open.delete(sessionId);
          this.lastUsed.delete(sessionId);
        }
      });
    }
  }
}
