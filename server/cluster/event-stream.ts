import type { SessionEvent } from "@/lib/contracts";
import type { Logger } from "@/lib/log";
import type { RedisClient } from "./redis";

/**
 * A chat's shared log: the owner of a running turn appends every relayed event
 * (already numbered) to a Redis stream per chat; every other process with viewers of that
 * chat reads it and delivers to its own sockets. Bounded (MAXLEN ~, about the replay
 * window) and expiring an hour after a turn ends: MongoDB is the durable record.
 */
export const STREAM_MAX_LEN = 50_000;
const EXPIRE_AFTER_TURN_S = 3_600;
const READ_BLOCK_MS = 500;
const READ_COUNT = 1_000;

export const streamKey = (sessionId: string) => `dlg:chat:${sessionId}:events`;

export interface StreamEntry {
  instanceId: string;
  event: SessionEvent;
}

/** One stream entry's fields; anything malformed is dropped (Redis content is trusted no more than needed). */
export function parseEntry(fields: Record<string, unknown>): StreamEntry | null {
  const { i, e } = fields;
  if (typeof i !== "string" || typeof e !== "string") return null;
  try {
    const event = JSON.parse(e) as SessionEvent;
    return typeof event === "object" && event !== null && typeof event.seq === "number" && typeof event.sessionId === "string"
      ? { instanceId: i, event }
      : null;
  } catch {
    return null;
  }
}

export interface EventPublisher {
  publish(event: SessionEvent): void;
}

/** Appends without waiting: the relay path never blocks on Redis; a failure is logged once per outage. */
export function createPublisher(client: RedisClient, instanceId: string, log?: Pick<Logger, "warn">): EventPublisher {
  let failing = false;
  const failed = (error: unknown) => {
    if (failing) return;
    failing = true;
    log?.warn("could not publish chat events to Redis; other processes' viewers will resync", { error: String(error) });
  };
  return {
    publish(event) {
      if (!client.isReady) {
        failed("not connected");
        return;
      }
      const key = streamKey(event.sessionId);
      client
        .xAdd(
          key,
          "*",
          { i: instanceId, e: JSON.stringify(event) },
          { TRIM: { strategy: "MAXLEN", strategyModifier: "~", threshold: STREAM_MAX_LEN } },
        )
        .then(() => {
          failing = false;
        }, failed);
      if (event.type === "turn:ended") client.expire(key, EXPIRE_AFTER_TURN_S).catch(failed);
    },
  };
}

/**
 * The one blocking reader of this process: XREAD over every chat it mirrors, each from
 * the last entry it delivered. A chat added while a read blocks is read from the next
 * round (at most READ_BLOCK_MS later), from the stream's end as it was when added, so
 * nothing published after `add` is missed. While Redis is away it waits and retries;
 * entry ids are times, so after a Redis restart (an empty stream) reading on from the
 * old id returns the new entries.
 */
export class StreamTail {
  private readonly offsets = new Map<string, string>();
  private running = true;
  private readonly loop: Promise<void>;

  /**
   * `client` blocks in XREAD; `lookup` (not blocked) answers where a stream ends now and
   * writes to `wakeKey`, a stream of this process's own that every read also waits on, so
   * a chat added while a read blocks is read from at once (the first events of a turn
   * watched from here would otherwise wait for the block to time out).
   */
  constructor(
    private readonly client: RedisClient,
    private readonly lookup: RedisClient,
    private readonly wakeKey: string,
    /** `id`: the entry's id in the stream, whose first part is the time (ms, Redis's clock) it was stored. */
    private readonly onEntry: (sessionId: string, entry: StreamEntry, id: string) => void,
  ) {
    this.loop = this.run();
  }

  /** Starts delivering the chat's entries published from now on. */
  async add(sessionId: string): Promise<void> {
    if (this.offsets.has(sessionId)) return;
    let offset = "0-0";
    try {
      const last = (await this.lookup.xRevRange(streamKey(sessionId), "+", "-", { COUNT: 1 }))?.[0];
      if (last) offset = last.id;
    } catch {
      // Redis away: read from the start once it is back (duplicates are skipped by number).
    }
    if (this.offsets.has(sessionId)) return;
    this.offsets.set(sessionId, offset);
    await this.lookup
      .xAdd(this.wakeKey, "*", { w: "1" }, { TRIM: { strategy: "MAXLEN", strategyModifier: "~", threshold: 10 } })
      .catch(() => undefined);
  }

  sessions(): string[] {
    return [...this.offsets.keys()];
  }

  remove(sessionId: string): void {
    this.offsets.delete(sessionId);
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }

  private async run(): Promise<void> {
    while (this.running) {
      if (this.offsets.size === 0 || !this.client.isReady) {
        await sleep(this.offsets.size === 0 ? 50 : 250);
        continue;
      }
      const streams = [...this.offsets].map(([sessionId, id]) => ({ key: streamKey(sessionId), id }));
      streams.push({ key: this.wakeKey, id: "$" });
      let reply: unknown;
      try {
        reply = await this.client.xRead(streams, { BLOCK: READ_BLOCK_MS, COUNT: READ_COUNT });
      } catch {
        await sleep(250);
        continue;
      }
      for (const stream of (reply ?? []) as { name: string; messages: { id: string; message: Record<string, unknown> }[] }[]) {
        if (stream.name === this.wakeKey) continue;
        const sessionId = stream.name.slice("dlg:chat:".length, -":events".length);
        for (const { id, message } of stream.messages) {
          if (!this.offsets.has(sessionId)) break;
          this.offsets.set(sessionId, id);
          const entry = parseEntry(message);
          if (entry) this.onEntry(sessionId, entry, id);
        }
      }
    }
  }
}

/** When Redis stored a stream entry (ms since the epoch, its clock), from the entry's id; undefined if the id is not one. */
export function storedAtMs(id: string): number | undefined {
  const ms = Number(id.split("-", 1)[0]);
  return Number.isSafeInteger(ms) && ms > 0 ? ms : undefined;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
