import { hostname } from "node:os";
import { randomBytes } from "node:crypto";
import type { Logger } from "@/lib/log";
import type { ChatStore } from "@/server/data/store";
import type { AppServer } from "@/server/realtime/types";
import type { DroneCluster, DroneSession } from "@/server/sessions/drone-session";
import type { SessionRegistry } from "@/server/sessions/registry";
import { routeToOwner, stopTurnElsewhere, type RoutingDeps } from "./command-routing";
import { createPublisher, type EventPublisher } from "./event-stream";
import type { LeaseStore } from "./lease";
import { LeaseKeeper } from "./lease-keeper";
import { Mirrors } from "./mirrors";
import { answerPeers, tellCancelOwner } from "./peer-requests";
import type { RoutedAnswer, RoutedCommand } from "./protocol";
import { connectClusterRedis, type ClusterRedis, type RedisClient, type RedisStatus } from "./redis";
import { streamsAdapter } from "./socket-adapter";
import { startSweeper, type Sweeper } from "./sweeper";
import { turnFromStream } from "./stream-turn";
import type { ClusterObserver } from "./observer";

/** How a process joins the others (built in server/index.ts from REDIS_URL, INSTANCE_ID, LEASE_MS). */
export interface ClusterOptions {
  redisUrl: string;
  instanceId: string;
  leaseMs: number;
  /** Told the relay's lag and each takeover (the app's metrics); absent: not counted. */
  observe?: ClusterObserver;
}

export function defaultInstanceId(): string {
  return `${hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`;
}

/**
 * Scale-out inside one app process: the Socket.IO adapter (socket-adapter.ts), the turn
 * leases and their heartbeat (lease-keeper.ts), the shared event streams, publishing ours
 * (event-stream.ts) and following the others' (mirrors.ts), command routing to a turn's
 * owner (command-routing.ts over peer-requests.ts) and the sweeper of dead processes'
 * turns (sweeper.ts). This class joins them and is all the rest of the app sees of them;
 * everything else in the app is the same with or without it.
 */
export class Cluster {
  readonly instanceId: string;
  readonly leaseMs: number;
  private io: AppServer | undefined;
  private registry: SessionRegistry | undefined;
  private readonly publisher: EventPublisher;
  private readonly leaseKeeper: LeaseKeeper;
  private readonly mirrors: Mirrors;
  private readonly routing: RoutingDeps;
  private sweeper: Sweeper | undefined;
  private readonly observe: ClusterObserver | undefined;

  private constructor(
    options: ClusterOptions,
    private readonly redis: ClusterRedis,
    private readonly leases: LeaseStore,
    private readonly store: ChatStore,
    private readonly log?: Logger,
  ) {
    this.instanceId = options.instanceId;
    this.leaseMs = options.leaseMs;
    const io = () => this.io;
    this.publisher = createPublisher(redis.events, this.instanceId, log);
    this.leaseKeeper = new LeaseKeeper(leases, this.instanceId, this.leaseMs, log);
    this.observe = options.observe;
    this.mirrors = new Mirrors({
      redis,
      leases,
      instanceId: this.instanceId,
      io,
      log,
      ...(options.observe ? { observe: options.observe } : {}),
    });
    this.routing = { leases, instanceId: this.instanceId, io };
    // Events published while Redis was away are lost to us (and a restarted Redis starts
    // empty): every mirrored chat resyncs from its owner and its viewers rejoin.
    redis.onReconnect(() => this.mirrors.resyncAll());
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
    answerPeers(io, { instanceId: this.instanceId, registry, log: this.log });
    this.sweeper = startSweeper({
      leases: this.leases,
      store: this.store,
      registry,
      instanceId: this.instanceId,
      leaseMs: this.leaseMs,
      log: this.log,
      ...(this.observe ? { observe: this.observe } : {}),
      recover: (sessionId, turnId) => turnFromStream(this.redis.events, sessionId, turnId),
    });
  }

  /** The hooks a DroneSession uses (see DroneCluster). */
  readonly drone: DroneCluster = {
    claim: (...args) => this.leaseKeeper.claim(...args),
    publish: (event) => this.publisher.publish(event),
  };

  /** Chats whose turns a process holds or held until it died (the start-up sweep leaves them to their holder or the sweeper). */
  heldSessions(): Promise<string[]> {
    return this.leases.leasedSessions();
  }

  /** A session this process just opened follows its chat from now on (see Mirrors.attach). */
  attach(session: DroneSession): Promise<void> {
    return this.mirrors.attach(session);
  }

  detach(sessionId: string): void {
    this.mirrors.detach(sessionId);
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

  /**
   * The connection the shared rate limits and login throttles count on (server/limiter-store.ts):
   * the event connection, whose offline queue is off, so while Redis is away a count fails
   * at once and falls back to memory instead of waiting. Closed with the rest at close().
   */
  get limitsClient(): RedisClient {
    return this.redis.events;
  }

  async close(): Promise<void> {
    this.sweeper?.stop();
    this.leaseKeeper.stop();
    await this.mirrors.stop();
    await this.redis.close();
  }
}
