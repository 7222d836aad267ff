import type { Server, ServerOptions } from "node:http";
import type { Socket } from "node:net";
import ipaddr from "ipaddr.js";
import { env } from "@/lib/env";
import type { Logger } from "@/lib/log";

/**
 * How many connections the HTTP server holds and how long an idle or slow one may stay.
 * Every open connection costs a file handle; without a cap, a few thousand slow clients
 * exhaust the process's handles and a new visitor is never answered.
 */
export interface ConnectionLimits {
  /** Open connections in all, WebSockets included; past it a new one is closed at once. 0: no cap. */
  max: number;
  /** Open connections from one client address (an IPv6 client: its /64). 0: no cap. */
  perAddress: number;
  /** A request's headers must arrive whole within this, from the connection's first byte wait on. */
  headersTimeoutMs: number;
  /** A connection with nothing sent either way for this long is closed (a stalled download, a stalled upload). */
  idleTimeoutMs: number;
  /** A request must arrive whole, body included, within this (above the import's own body timeout). */
  requestTimeoutMs: number;
}

/** Between two keep-alive requests a connection waits this long for the next. */
const KEEP_ALIVE_TIMEOUT_MS = 5_000;

export function connectionLimits(overrides: Partial<ConnectionLimits> = {}, importBodyTimeoutMs?: number): ConnectionLimits {
  const config = env();
  const headersTimeoutMs = overrides.headersTimeoutMs ?? config.HTTP_HEADERS_TIMEOUT_MS;
  return {
    max: overrides.max ?? config.MAX_CONNECTIONS,
    perAddress: overrides.perAddress ?? config.MAX_CONNECTIONS_PER_ADDRESS,
    headersTimeoutMs,
    idleTimeoutMs: overrides.idleTimeoutMs ?? config.HTTP_IDLE_TIMEOUT_MS,
    // The import answers its own timeout clearly first; this is the backstop for every other request.
    requestTimeoutMs: overrides.requestTimeoutMs ?? (importBodyTimeoutMs ?? config.IMPORT_BODY_TIMEOUT_MS) + headersTimeoutMs,
  };
}

/**
 * The options `createServer` takes for these limits. Node checks the header and request
 * timeouts on a timer (30 s by default, which let a slow-header connection live 63-78 s);
 * checking a few times within the header timeout closes one close to it.
 */
export function serverTimeouts(limits: ConnectionLimits): ServerOptions {
  return {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: Math.max(limits.requestTimeoutMs, limits.headersTimeoutMs),
    keepAliveTimeout: Math.min(KEEP_ALIVE_TIMEOUT_MS, limits.idleTimeoutMs),
    connectionsCheckingInterval: Math.max(100, Math.min(1_000, Math.floor(limits.headersTimeoutMs / 5))),
  };
}

/**
 * Applies the caps and the idle timeout to `server`. Past the total cap Node closes a new
 * connection before any of it is read (`maxConnections`); past one address's cap the
 * connection is closed as soon as it is accepted. Nothing is answered in either case: a
 * flood is not worth a response, and a browser retries. Upgraded WebSockets count as
 * connections but are not cut by the request or idle timeouts (Node hands them over
 * without the HTTP timers, and Socket.IO's heartbeat keeps them in check).
 *
 * The address is the TCP peer's: behind a reverse proxy every client is the proxy, so
 * there the per-address cap must be off or high (the proxy limits per client).
 */
export function limitConnections(server: Server, limits: ConnectionLimits, log?: Pick<Logger, "warn">): void {
  if (limits.max > 0) server.maxConnections = limits.max;
  server.timeout = limits.idleTimeoutMs;
  const refusals = refusalLog(log);
  server.on("drop", () => refusals.count("the server's"));
  if (limits.perAddress <= 0) return;
  const open = new Map<string, number>();
  server.on("connection", (socket: Socket) => {
    const key = addressKey(socket.remoteAddress);
    const count = open.get(key) ?? 0;
    if (count >= limits.perAddress) {
      socket.destroy();
      refusals.count("one address's");
      return;
    }
    open.set(key, count + 1);
    socket.once("close", () => {
      const left = (open.get(key) ?? 1) - 1;
      if (left > 0) open.set(key, left);
      else open.delete(key);
    });
  });
}

/**
 * What one client's connections are counted under: an IPv4 address (an IPv4-mapped IPv6
 * one as IPv4), or an IPv6 address's /64, the block one household or host is given, so
 * one client cannot step around the cap by picking new addresses inside its own block.
 */
export function addressKey(address: string | undefined): string {
  if (!address || !ipaddr.isValid(address)) return address ?? "unknown";
  const parsed = ipaddr.process(address);
  if (parsed.kind() === "ipv4") return parsed.toString();
  const prefix = (parsed as ipaddr.IPv6).parts.slice(0, 4).map((part) => part.toString(16));
  return `${prefix.join(":")}::/64`;
}

/** One warning a minute at most, with how many connections were refused, so a flood does not flood the log. */
function refusalLog(log: Pick<Logger, "warn"> | undefined): { count(cap: string): void } {
  const counts = new Map<string, number>();
  let timer: NodeJS.Timeout | undefined;
  return {
    count(cap) {
      if (!log) return;
      counts.set(cap, (counts.get(cap) ?? 0) + 1);
      timer ??= setTimeout(() => {
        timer = undefined;
        for (const [which, n] of counts) log.warn(`Refused ${n} connection(s) over ${which} connection cap in the last minute`);
        counts.clear();
      }, 60_000).unref();
    },
  };
}
