import type { SessionEvent } from "@/lib/contracts";
import type { Logger } from "@/lib/log";
import { sessionRoom, type AppServer } from "@/server/realtime/types";
import type { DroneSession, MirrorSnapshot } from "@/server/sessions/drone-session";
import { StreamTail, storedAtMs, type StreamEntry } from "./event-stream";
import type { LeaseStore } from "./lease";
import { askSnapshot, heldElsewhere } from "./peer-requests";
import type { ClusterObserver } from "./observer";
import type { ClusterRedis } from "./redis";

export interface MirrorsDeps {
  redis: Pick<ClusterRedis, "blocking" | "events">;
  leases: LeaseStore;
  instanceId: string;
  /** The Socket.IO server, once the cluster is bound to it (no owner to ask, no viewer to tell, before). */
  io: () => AppServer | undefined;
  log?: Logger;
  observe?: ClusterObserver;
}

/**
 * The chats this process shows but does not run: each open session follows its chat's
 * event stream from the owner's snapshot, so a join here answers as a join on the owner
 * would. A gap in the numbers (Redis was away, the stream was trimmed) resyncs the
 * session from the owner, and its viewers here are told to rejoin.
 */
export class Mirrors {
  /** The sessions this process follows, from the moment `attach` starts (before the registry calls them ready). */
  private readonly sessions = new Map<string, DroneSession>();
  /** Chats resynchronising: events read meanwhile wait here, in order. */
  private readonly syncing = new Map<string, SessionEvent[]>();
  private readonly tail: StreamTail;
  private stopped = false;

  constructor(private readonly deps: MirrorsDeps) {
    const { redis, instanceId } = deps;
    this.tail = new StreamTail(redis.blocking, redis.events, `dlg:wake:${instanceId}`, (sessionId, entry, id) =>
      this.onEntry(sessionId, entry, id),
    );
  }

  /**
   * A session this process just opened: from now on it follows the chat's stream, and it
   * starts from the owner's snapshot of the running turn (or the chat's last number).
   */
  async attach(session: DroneSession): Promise<void> {
    const { sessionId } = session;
    this.sessions.set(sessionId, session);
    // Events read from here on wait for the snapshot, in order.
    this.syncing.set(sessionId, []);
    await this.tail.add(sessionId);
    await this.resync(session, false, true);
  }

  detach(sessionId: string): void {
    this.sessions.delete(sessionId);
    this.tail.remove(sessionId);
    this.syncing.delete(sessionId);
  }

  /** Every followed chat, after events may have been lost for all of them (Redis was away). */
  resyncAll(): void {
    for (const session of this.sessions.values()) void this.resync(session, true);
  }

  /** Stops reading the streams; no resync is tried again after this. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.tail.stop();
  }

  private onEntry(sessionId: string, { instanceId, event }: StreamEntry, id: string): void {
    if (instanceId === this.deps.instanceId || event.sessionId !== sessionId) return;
    // The relay's lag: from the owner's append to this read (both clocks are Redis's and ours; skew shows as lag).
    const storedAt = storedAtMs(id);
    if (storedAt !== undefined) this.deps.observe?.relayLag(Math.max(0, Date.now() - storedAt) / 1000);
    const waiting = this.syncing.get(sessionId);
    if (waiting) {
      waiting.push(event);
      return;
    }
    const session = this.sessions.get(sessionId);
    if (session && session.follow(event) === "gap") {
      this.deps.log?.info("events of a chat were missed here; resyncing from its owner", {
        sessionId,
        had: session.currentSeq,
        got: event.seq,
      });
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
    const { leases, instanceId } = this.deps;
    if (!buffering) {
      if (this.syncing.has(sessionId)) return;
      this.syncing.set(sessionId, []);
    }
    let retry = false;
    try {
      const lease = await leases
        .get(sessionId)
        .then((l) => l ?? leases.ensure(sessionId, session.currentSeq))
        .catch(() => null);
      let snapshot: MirrorSnapshot | null = null;
      const io = this.deps.io();
      if (lease && heldElsewhere(lease, instanceId) && io) {
        snapshot = await askSnapshot(io, sessionId);
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
    if (afterGap) this.deps.io()?.local.to(sessionRoom(sessionId)).emit("replay:complete", { sessionId, seq: session.currentSeq });
    if (retry && !this.stopped)
      setTimeout(() => void (this.sessions.get(sessionId) === session && this.resync(session, true)), 1_000).unref();
  }
}
