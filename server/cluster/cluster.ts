import { hostname } from "node:os";
import { randomBytes } from "node:crypto";
import type { SessionEvent } from "@/lib/contracts";
import type { Logger } from "@/lib/log";
import type { ChatStore } from "@/server/data/store";
import { sessionRoom, type AppServer } from "@/server/realtime/types";
import type { DroneCluster, DroneSession, MirrorSnapshot } from "@/server/sessions/drone-session";
import type { SessionRegistry } from "@/server/sessions/registry";
import { routeToOwner, stopTurnElsewhere, type RoutingDeps } from "./command-routing";
import { createPublisher, StreamTail, type EventPublisher, type StreamEntry } from "./event-stream";
import type { LeaseStore } from "./lease";
import { LeaseKeeper } from "./lease-keeper";
import { answerPeers, askSnapshot, heldElsewhere, tellCancelOwner } from "./peer-requests";
import type { RoutedAnswer, RoutedCommand } from "./protocol";
import { connectClusterRedis, type ClusterRedis, type RedisStatus } from "./redis";
import { adaptersSubscribed, streamsAdapter } from "./socket-adapter";
import { startSweeper, type Sweeper } from "./sweeper";
import { turnFromStream } from "./stream-turn";

/** How a process joins the others (built in server/index.ts from REDIS_URL, INSTANCE_ID, LEASE_MS). */
export interface ClusterOptions {
  redisUrl: string;
  instanceId: string;
  leaseMs: number;
}

export function defaultInstanceId(): string {
  return `${hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`;
}

/**
 * Scale-out inside one app process: the Socket.IO adapter, the turn leases and
 * their heartbeat, the shared event streams (publishing ours, mirroring the others'),
 * command routing to a turn's owner and the sweeper of dead processes' turns.
 * Everything else in the app is the same with or without it.
 */
export class Cluster {
  readonly instanceId: string;
  readonly leaseMs: number;
  private io: AppServer | undefined;
  private registry: SessionRegistry | undefined;
  private readonly publisher: EventPublisher;
  private readonly tail: StreamTail;
  /** The sessions this process follows, from the moment `attach` starts (before the registry calls them ready). */
  private readonly mirrors = new Map<string, DroneSession>();
  /** Chats resynchronising: events read meanwhile wait here, in order. */
  private readonly syncing = new Map<string, SessionEvent[]>();
  private readonly leaseKeeper: LeaseKeeper;
  private readonly routing: RoutingDeps;
  private sweeper: Sweeper | undefined;
  private stopped = false;
  /** The adapters' first SUBSCRIBE, confirmed (see `adaptersSubscribed`). */
  private subscribed: Promise<void> = Promise.resolve();

  private constructor(
    options: ClusterOptions,
    private readonly redis: ClusterRedis,
    private readonly leases: LeaseStore,
    private readonly store: ChatStore,
    private readonly log?: Logger,
  ) {
    this.instanceId = options.instanceId;
    this.leaseMs = options.leaseMs;
    this.publisher = createPublisher(redis.events, this.instanceId, log);
    this.leaseKeeper = new LeaseKeeper(leases, this.instanceId, this.leaseMs, log);
    this.routing = { leases, instanceId: this.instanceId, io: () => this.io };
    this.tail = new StreamTail(redis.blocking, redis.events, `dlg:wake:${this.instanceId}`, (sessionId, entry) =>
      this.onEntry(sessionId, entry),
    );
    // Events published while Redis was away are lost to us (and a restarted Redis starts
    // empty): every mirrored chat resyncs from its owner and its viewers rejoin.
    redis.onReconnect(() => {
      for (const session of this.mirrors.values()) void this.resync(session, true);
    });
  }

  static async connect(options: ClusterOptions, deps: { leases: LeaseStore; store: ChatStore; log?: Logger }): Promise<Cluster> {
    const redis = await connectClusterRedis(options.redisUrl, deps.log);
    return new Cluster(options, redis, deps.leases, deps.store, deps.log);
  }

  /** Socket.IO across processes (see socket-adapter.ts). */
  adapter() {
    return streamsAdapter(this.redis.adapter, this.leaseMs);
  }

  redisStatus(): RedisStatus {
    return this.redis.status();
  }

  /** Starts answering the other processes and sweeping dead ones' turns. */
  bind(io: AppServer, registry: SessionRegistry): void {
    this.io = io;
    this.registry = registry;
    // After the rest of createApp has run, so every namespace's adapter exists.
    this.subscribed = new Promise<void>((resolve) => setImmediate(resolve)).then(() => adaptersSubscribed(io, this.redis.events));
    answerPeers(io, { instanceId: this.instanceId, registry, log: this.log });
    this.sweeper = startSweeper({
      leases: this.leases,
      store: this.store,
      registry,
      instanceId: this.instanceId,
      leaseMs: this.leaseMs,
      log: this.log,
      recover: (sessionId, turnId) => turnFromStream(this.redis.events, sessionId, turnId),
    });
  }

  /** The hooks a DroneSession uses (see DroneCluster). */
  readonly drone: DroneCluster = {
    claim: (...args) => this.leaseKeeper.claim(...args),
    publish: (event) => this.publisher.publish(event),
  };

  /** Turns of `ownerId` running in any process (the per-person cap). */
  countRunning(ownerId: string): Promise<number> {
    return this.leases.countHeld(ownerId);
  }

  /** Chats whose turns a process holds or held until it died (the start-up sweep leaves them to their holder or the sweeper). */
  heldSessions(): Promise<string[]> {
    return this.leases.leasedSessions();
  }

  /**
   * A session this process just opened: from now on it follows the chat's stream, and it
   * starts from the owner's snapshot of the running turn (or the chat's last number), so
   * a join here answers as a join on the owner would.
   */
  async attach(session: DroneSession): Promise<void> {
    const { sessionId } = session;
    this.mirrors.set(sessionId, session);
    // Events read from here on wait for the snapshot, in order.
    this.syncing.set(sessionId, []);
    await this.tail.add(sessionId);
    await this.resync(session, false, true);
  }

  detach(sessionId: string): void {
    this.mirrors.delete(sessionId);
    this.tail.remove(sessionId);
    this.syncing.delete(sessionId);
  }

  /** A command for a turn another process runs, answered there (see routeToOwner). */
  route(sessionId: string, command: RoutedCommand): Promise<RoutedAnswer> {
    return routeToOwner(this.routing, sessionId, command);
  }

  /** Stops `ownerId`'s turns here and in every other process. */
  cancelOwnerTurns(ownerId: string): void {
    this.registry?.cancelTurns(ownerId);
    if (this.io) tellCancelOwner(this.io, ownerId);
  }

  /** Before a chat is deleted here: its turn on another process stops there first (see stopTurnElsewhere). */
  stopElsewhere(sessionId: string): Promise<void> {
    return stopTurnElsewhere(this.routing, sessionId);
  }

  async close(): Promise<void> {
    this.stopped = true;
    this.sweeper?.stop();
    this.leaseKeeper.stop();
    await this.tail.stop();
    await this.subscribed;
    await this.redis.close();
  }

  private onEntry(sessionId: string, { instanceId, event }: StreamEntry): void {
    if (instanceId === this.instanceId || event.sessionId !== sessionId) return;
    const waiting = this.syncing.get(sessionId);
    if (waiting) {
      waiting.push(event);
      return;
    }
    const session = this.mirrors.get(sessionId);
    if (session && session.follow(event) === "gap") {
      this.log?.info("events of a chat were missed here; resyncing from its owner", { sessionId, had: session.currentSeq, got: event.seq });
      void this.resync(session, true);
    }
  }

  /**
   * Brings a session up to the chat's live state: the owner's snapshot of its running
   * turn, or with no turn held elsewhere the chat's last number from the lease. Events
   * read meanwhile are applied after it (those it covers are skipped by number). After a
   * gap, local viewers are told to rejoin (a `replay:complete` past their number).
   */
  private async resync(session: DroneSession, afterGap: boolean, buffering = false): Promise<void> {
    const { sessionId } = session;
    if (!buffering) {
      if (this.syncing.has(sessionId)) return;
      this.syncing.set(sessionId, []);
    }
    let retry = false;
    try {
      const lease = await this.leases
        .get(sessionId)
        .then((l) => l ?? this.leases.ensure(sessionId, session.currentSeq))
        .catch(() => null);
      let snapshot: MirrorSnapshot | null = null;
      if (lease && heldElsewhere(lease, this.instanceId) && this.io) {
        snapshot = await askSnapshot(this.io, sessionId);
        // The owner did not answer (Redis away, or it just died): try again later.
        if (!snapshot) retry = true;
      } else if (lease && lease.instanceId === null && !session.runningTurnId) {
        snapshot = { turn: null, seq: lease.seq };
      }
      // A snapshot older than what this process already follows (it travelled slower than
      // the stream) would take it backwards; only the first one, at attach, is taken as is.
      if (snapshot && (buffering || snapshot.seq >= session.currentSeq)) session.adopt(snapshot);
    } finally {
      const waiting = this.syncing.get(sessionId) ?? [];
      this.syncing.delete(sessionId);
      for (const event of waiting) {
        if (session.follow(event) === "gap") {
          retry = true;
          break;
        }
      }
    }
    if (afterGap) this.io?.local.to(sessionRoom(sessionId)).emit("replay:complete", { sessionId, seq: session.currentSeq });
    if (retry && !this.stopped)
      setTimeout(() => void (this.mirrors.get(sessionId) === session && this.resync(session, true)), 1_000).unref();
  }
}
