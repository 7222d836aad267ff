import type { IncomingMessage, ServerResponse } from "node:http";
import type { RedisStatus } from "@/server/cluster/redis";

/**
 * The probes an orchestrator asks, beside `/api/health` (which stays as it is: people and
 * scripts read it). Liveness says only that the process answers, so a restart is never
 * ordered for a database outage a restart cannot fix; readiness says whether this process
 * can serve now, so a load balancer sends people elsewhere meanwhile.
 */
export const LIVE_PATH = "/api/health/live";
export const READY_PATH = "/api/health/ready";

export interface HealthDeps {
  /** The database answers a ping now. */
  dbUp: () => Promise<boolean> | boolean;
  /** REDIS_URL's connection; absent without a cluster. */
  redis?: () => RedisStatus;
  /** The embedded database's process is being started again (server/db/embedded.ts). */
  dbRestarting?: () => boolean;
  /** The process is shutting down (SIGTERM): no new work should come here. */
  stopping: () => boolean;
}

export interface Readiness {
  ok: boolean;
  /** The parts that are down, by name; empty when ready. */
  down: string[];
  /** Parts that are down while this process still serves its own viewers (Redis); empty when whole. */
  degraded: string[];
  database: "up" | "down" | "restarting";
  redis: RedisStatus;
  stopping: boolean;
}

/**
 * What readiness reads: every part that must be up, and which ones are not. Redis down
 * degrades a process without making it unready: Redis is shared, so it would take every
 * replica out of the proxy at once, while each one still runs its turns, stores them and
 * streams them to its own viewers (viewers on other replicas catch up once Redis is back).
 */
export async function readiness(deps: HealthDeps): Promise<Readiness> {
  const stopping = deps.stopping();
  const restarting = deps.dbRestarting?.() ?? false;
  const database = restarting ? "restarting" : (await deps.dbUp()) ? "up" : "down";
  const redis = deps.redis?.() ?? "off";
  const down = [...(database === "up" ? [] : ["database"]), ...(stopping ? ["process"] : [])];
  const degraded = redis === "down" ? ["redis"] : [];
  return { ok: down.length === 0, down, degraded, database, redis, stopping };
}

export function isHealthProbe(pathname: string): boolean {
  return pathname === LIVE_PATH || pathname === READY_PATH;
}

/** Answers a probe (see isHealthProbe): 200 when live or ready, 503 with what is not. */
export async function serveHealthProbe(req: IncomingMessage, res: ServerResponse, pathname: string, deps: HealthDeps): Promise<void> {
  req.resume();
  if (req.method !== "GET" && req.method !== "HEAD") {
    send(res, req, 405, { error: "method_not_allowed", message: "GET a health probe." });
    return;
  }
  if (pathname === LIVE_PATH) {
    const stopping = deps.stopping();
    send(res, req, stopping ? 503 : 200, { ok: !stopping, ...(stopping ? { stopping } : {}) });
    return;
  }
  const ready = await readiness(deps);
  send(res, req, ready.ok ? 200 : 503, ready);
}

function send(res: ServerResponse, req: IncomingMessage, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" });
  res.end(req.method === "HEAD" ? undefined : JSON.stringify(body));
}
