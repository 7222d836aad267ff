import { AppError, type SessionEvent } from "@/lib/contracts";
import type { ChatStore } from "@/server/data/store";
import type { Logger } from "@/lib/log";
import { DroneSession, type DroneCluster } from "./drone-session";
import type { TurnRunner } from "./turn-runner";
import type { TurnSettings } from "@/server/catalog/chat-settings";
import type { SessionObserver } from "./session-observer";

/**
 * What the registry asks of the cluster (server/cluster/cluster.ts implements it). Declared
 * here rather than imported, since the cluster in turn reads the registry's sessions: an
 * import each way would make the two modules a cycle.
 */
export interface RegistryCluster {
  drone: DroneCluster;
  /** Follows the chat's stream from the owner's snapshot; the session is ready once done. */
  attach(session: DroneSession): Promise<void>;
  detach(sessionId: string): void;
}

/**
 * The open DroneSessions of this process, one per chat, loaded on first use and
 * forgotten when idle. It does no ownership check of its own: the session service
 * checks before it asks for a session.
 */
export interface SessionRegistryDeps {
  store: ChatStore;
  runner: TurnRunner;
  /** The model and instructions a chat's next turn runs with; absent: the runner's own model, no instructions. */
  turnSettings?: (ownerId: string, sessionId: string) => Promise<TurnSettings>;
  relay: (event: SessionEvent) => void;
  onTitleChanged: (ownerId: string) => void;
  log?: Logger;
  flushMs?: number;
  /** Scale-out: leases, the shared event streams; absent on one process. */
  cluster?: RegistryCluster;
  /** Shown what every session runs (the process's metrics). */
  observe?: SessionObserver;
}

const IDLE_EVICT_MS = 15 * 60_000;

export class SessionRegistry {
  private readonly sessions = new Map<string, Promise<DroneSession>>();
  /** Who owns each open session, for the per-person caps. */
  private readonly owners = new Map<string, string>();
  /** The sessions already opened, for counting without awaiting. */
  private readonly ready = new Map<string, DroneSession>();
  /** Sessions being deleted: not reopened until the delete is done. */
  private readonly closing = new Set<string>();
  private readonly lastUsed = new Map<string, number>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly deps: SessionRegistryDeps) {
    this.sweeper = setInterval(() => this.evictIdle(), 60_000);
    this.sweeper.unref();
  }

  /** The session's DroneSession, opened if needed. Call only after checking ownership. */
  async open(summary: { sessionId: string; title: string }, ownerId: string): Promise<DroneSession> {
    const { sessionId } = summary;
    if (this.closing.has(sessionId)) throw new AppError("not_found", "That chat does not exist.");
    this.lastUsed.set(sessionId, Date.now());
    let pending = this.sessions.get(sessionId);
    if (!pending) {
      pending = DroneSession.open({
        store: this.deps.store,
        sessionId,
        title: summary.title,
        runner: this.deps.runner,
        turnSettings: this.deps.turnSettings && (() => this.deps.turnSettings!(ownerId, sessionId)),
        relay: this.deps.relay,
        onTitleChanged: () => this.deps.onTitleChanged(ownerId),
        log: this.deps.log,
        flushMs: this.deps.flushMs,
        cluster: this.deps.cluster?.drone,
        ...(this.deps.observe ? { observe: this.deps.observe } : {}),
      });
      const cluster = this.deps.cluster;
      // Cluster: ready once it follows the chat's stream from the owner's snapshot.
      if (cluster) pending = pending.then(async (session) => (await cluster.attach(session), session));
      this.sessions.set(sessionId, pending);
      this.owners.set(sessionId, ownerId);
      pending.then(
        (session) => this.ready.set(sessionId, session),
        () => this.forget(sessionId),
      );
    }
    return pending;
  }

  /**
   * Turns running now for `person` (synchronous: a check and a start can share one step):
   * those started for them, and those started for no one in their chats (see `personKey`).
   */
  runningTurns(person: string): number {
    let running = 0;
    for (const [sessionId, session] of this.ready) {
      if (session.runningTurnId && (session.runningPerson ?? this.owners.get(sessionId)) === person) running++;
    }
    return running;
  }

  /** Cancels every running turn of `ownerId` (an account disabled or deleted). */
  cancelTurns(ownerId: string): void {
    for (const [sessionId, session] of this.ready) {
      if (session.runningTurnId && this.owners.get(sessionId) === ownerId) session.cancel(session.runningTurnId);
    }
  }

  /** Sessions open in this process now (loaded; a gauge of the process's metrics). */
  get openCount(): number {
    return this.ready.size;
  }

  /** Turns running in this process now. */
  get runningCount(): number {
    let running = 0;
    for (const session of this.ready.values()) if (session.runningTurnId) running++;
    return running;
  }

  /** The open session, if already loaded (synchronous). */
  peekReady(sessionId: string): DroneSession | undefined {
    return this.ready.get(sessionId);
  }

  /** False once shutting down: no new turn starts here. */
  get accepting(): boolean {
    return !this.stopping;
  }

  private stopping = false;

  private forget(sessionId: string): void {
    this.deps.cluster?.detach(sessionId);
    this.sessions.delete(sessionId);
    this.ready.delete(sessionId);
    this.owners.delete(sessionId);
    this.lastUsed.delete(sessionId);
  }

  /** The open session, if loaded. */
  async peek(sessionId: string): Promise<DroneSession | undefined> {
    return this.sessions.get(sessionId);
  }

  /**
   * Closes the session for good while `remove` deletes its data: no turn starts in it from
   * the moment this is called (a send that races the delete gets `not_found`), the running
   * one is stopped and waited for, and nothing reopens it until `remove` has finished.
   */
  async delete(sessionId: string, remove: () => Promise<void>): Promise<void> {
    this.closing.add(sessionId);
    try {
      const session = await this.sessions.get(sessionId)?.catch(() => undefined);
      await session?.close();
      this.forget(sessionId);
      await remove();
    } finally {
      this.closing.delete(sessionId);
    }
  }

  /** Cancels running turns and waits until everything is written. */
  async shutdown(): Promise<{ sessionId: string; turnId: string }[]> {
    this.stopping = true;
    clearInterval(this.sweeper);
    const sessions = await Promise.all([...this.sessions.values()].map((p) => p.catch(() => undefined)));
    const ended: { sessionId: string; turnId: string }[] = [];
    for (const session of sessions) {
      if (!session?.runningTurnId) continue;
      ended.push({ sessionId: session.sessionId, turnId: session.runningTurnId });
      session.cancel(session.runningTurnId);
    }
    await Promise.all(sessions.map((s) => s?.settled()));
    return ended;
  }

  /**
   * Forgets sessions unused for `idleMs` with no turn running: their turns are in MongoDB,
   * and a browser that comes back gets a snapshot. Runs every minute.
   */
  evictIdle(idleMs = IDLE_EVICT_MS): void {
    const now = Date.now();
    for (const [sessionId, pending] of this.sessions) {
      if (now - (this.lastUsed.get(sessionId) ?? 0) < idleMs) continue;
      void pending.then((session) => {
        if (session.isIdle) this.forget(sessionId);
      });
    }
  }
}
