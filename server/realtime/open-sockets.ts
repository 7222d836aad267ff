import type { Logger } from "@/lib/log";
import type { RedisClient } from "@/server/cluster/redis";
import { REDIS_TIMEOUT_MS } from "@/server/limiter-store";

/**
 * How many connections each person has open, for the cap at the handshake. In memory for
 * one process; with REDIS_URL in Redis, so that a person's sockets on every process count
 * against one cap.
 *
 * In Redis a person's sockets are a sorted set whose scores are expiry times on Redis's own
 * clock (no two processes' clocks compared): each process renews its own sockets every
 * third of `ttlMs`, so the sockets of a process that died drop out of the count within
 * `ttlMs`. The renewal adds as well as extends, so a socket counted in memory while Redis
 * was away (or lost with a restarted Redis) is counted there again at the next one. Redis
 * away or slow: the count falls back to this process's own sockets for that handshake,
 * as without Redis; nobody waits on it and nobody is let in unlimited.
 */
export interface OpenSockets {
  /** Counts `socketId` in for `person` if they have fewer than `limit` open; false when at the cap. */
  admit(person: string, socketId: string, limit: number): Promise<boolean>;
  /** The socket closed. */
  leave(person: string, socketId: string): void;
  /** Stops renewing (the process is stopping); its sockets expire in Redis by themselves. */
  stop(): void;
}

/** A person's sockets on this process. */
class LocalSockets {
  private readonly byPerson = new Map<string, Set<string>>();

  count(person: string): number {
    return this.byPerson.get(person)?.size ?? 0;
  }

  add(person: string, socketId: string): void {
    const set = this.byPerson.get(person) ?? new Set<string>();
    set.add(socketId);
    this.byPerson.set(person, set);
  }

  delete(person: string, socketId: string): void {
    const set = this.byPerson.get(person);
    if (!set) return;
    set.delete(socketId);
    if (set.size === 0) this.byPerson.delete(person);
  }

  entries(): IterableIterator<[string, Set<string>]> {
    return this.byPerson.entries();
  }
}

export function memoryOpenSockets(): OpenSockets {
  const local = new LocalSockets();
  return {
    async admit(person, socketId, limit) {
      if (local.count(person) >= limit) return false;
      local.add(person, socketId);
      return true;
    },
    leave: (person, socketId) => local.delete(person, socketId),
    stop: () => undefined,
  };
}

/** Sockets of a process that stopped renewing them stop counting after this long. */
export const OPEN_SOCKET_TTL_MS = 30_000;
const KEY_PREFIX = "dlg:sockets:";

/** Drops the expired, then adds the socket if there is room. KEYS[1]: the person's set. ARGV: limit, member, ttl. */
const ADMIT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[2])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]))
return 1`;

/** Renews (or adds back) this process's sockets of one person. KEYS[1]: the set. ARGV: ttl, members… */
const RENEW = `
local t = redis.call('TIME')
local expires = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + tonumber(ARGV[1])
for i = 2, #ARGV do redis.call('ZADD', KEYS[1], expires, ARGV[i]) end
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[1]))
return 1`;

export function redisOpenSockets(
  client: RedisClient,
  instanceId: string,
  options: { ttlMs?: number; log?: Pick<Logger, "warn"> } = {},
): OpenSockets {
  const ttlMs = options.ttlMs ?? OPEN_SOCKET_TTL_MS;
  const local = new LocalSockets();
  const key = (person: string) => `${KEY_PREFIX}${person}`;
  const member = (socketId: string) => `${instanceId}/${socketId}`;
  let warned = false;
  const away = (error: unknown) => {
    if (warned) return;
    warned = true;
    options.log?.warn("Redis is unreachable: connections per person count per process until it is back", { error: String(error) });
  };

  const renew = () => {
    if (!client.isReady) return;
    for (const [person, sockets] of local.entries()) {
      client.eval(RENEW, { keys: [key(person)], arguments: [String(ttlMs), ...[...sockets].map(member)] }).catch(away);
    }
  };
  const timer = setInterval(renew, Math.max(50, Math.floor(ttlMs / 3)));
  timer.unref();

  return {
    async admit(person, socketId, limit) {
      let admitted: boolean;
      try {
        if (!client.isReady) throw new Error("not connected");
        const answer = await withTimeout(
          client.eval(ADMIT, { keys: [key(person)], arguments: [String(limit), member(socketId), String(ttlMs)] }),
          REDIS_TIMEOUT_MS,
        );
        admitted = answer === 1;
        warned = false;
      } catch (error) {
        away(error);
        admitted = local.count(person) < limit;
      }
      if (admitted) local.add(person, socketId);
      return admitted;
    },
    leave(person, socketId) {
      local.delete(person, socketId);
      if (client.isReady) client.zRem(key(person), member(socketId)).catch(away);
    },
    stop: () => clearInterval(timer),
  };
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Redis did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
