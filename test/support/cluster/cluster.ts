import { cpSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { startAppProcess, type AppProcess } from "../../../e2e/app-process";
import { startMongoJavaServer, type RunningMongo } from "../../../server/db/mongo-java-server";
import { readableLogLine } from "../log-lines";
import { startTestRedis, type TestRedis } from "../redis/redis-server";

/**
 * Several real app processes behind no proxy, the way the scale-out runs them: each is
 * `tsx server/index.ts` on the production build, on its own loopback port, all on one
 * Debian `redis-server` (REDIS_URL) and one database, sharing the cookie secret (a
 * browser signed in on one is the same person on all) and one copy of the sample
 * workspace. Tests, the browser specs and `npm run load -- --processes N` start it; its
 * `close` stops everything it started, and a process that dies mid-test is left dead.
 */
export interface ClusterNode {
  /** "a", "b", "c", …; its INSTANCE_ID is `node-<name>`. */
  name: string;
  instanceId: string;
  baseUrl: string;
  port: number;
  readonly alive: boolean;
  /** The exit code once it has exited by itself or by `terminate` (null after a signal kill). */
  readonly exitCode: number | null;
  /** SIGKILL: the process dies at once, leaving its turns and leases behind. */
  kill(): Promise<void>;
  /** SIGTERM, resolving when it has exited (SIGKILL after 10 s, as `stopChild` does). */
  terminate(): Promise<void>;
  health(): Promise<ClusterHealth>;
  /** The last lines it wrote to stderr (its log, made readable), for a failing test's message. */
  log(): string;
}

/** `GET /api/health` as the scale-out contract states it (`instance` and `redis` are new with it). */
export interface ClusterHealth {
  ok: boolean;
  database?: string;
  instance?: string;
  redis?: "up" | "down" | "off";
}

export interface Cluster {
  nodes: ClusterNode[];
  /** Absent when started with `redis: false` (one process, as today). */
  redis?: TestRedis;
  /** The one database every node uses. */
  mongoUri: string;
  workspaceDir: string;
  leaseMs: number;
  node(name: string): ClusterNode;
  alive(): ClusterNode[];
  /** Every node's recent log, labelled: what a failing test prints. */
  logs(): string;
  close(): Promise<void>;
}

export interface ClusterOptions {
  processes: number;
  /**
   * The database (server and name) every node uses. Without it, the project's test database
   * server is started (and stopped by `close`) with a fresh database.
   */
  mongoUri?: string;
  /** Start Redis and give every node REDIS_URL (default true). */
  redis?: boolean;
  /** Lease lifetime (LEASE_MS); tests use 2000 so a dead owner is swept within seconds. */
  leaseMs?: number;
  /** More environment for every node (model, pace). */
  env?: Record<string, string>;
  /** Let the nodes' logs through to this process's output (default: kept, shown on failure). */
  verbose?: boolean;
  /** Each line a node writes to stderr (its JSON log), from its first; not called with `verbose`. */
  onLogLine?: (node: string, line: string) => void;
}

/** The secret every node signs cookies with: one person across all of them. */
const CLUSTER_SECRET = "cluster-test-secret-cluster-test-secret-0123";

export function assertProductionBuild(): void {
  if (!existsSync(".next/BUILD_ID")) {
    throw new Error(
      "the app processes serve the production build, and there is none: run `npx next build --webpack` first (scripts/test-all.sh builds before the tests)",
    );
  }
}

export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  assertProductionBuild();
  const leaseMs = options.leaseMs ?? 2_000;
  const useRedis = options.redis ?? true;
  let mongo: RunningMongo | undefined;
  let redis: TestRedis | undefined;
  const dir = mkdtempSync(path.join(tmpdir(), "delegate-cluster-"));
  const started: AppProcess[] = [];
  try {
    let mongoUri = options.mongoUri;
    if (!mongoUri) {
      mongo = await startMongoJavaServer();
      mongoUri = new URL(`cluster_${Date.now()}`, mongo.uri).toString();
    }
    redis = useRedis ? await startTestRedis() : undefined;
    // A copy: an approved file edit must not change the repository's sample workspace.
    const workspaceDir = path.join(dir, "workspace");
    cpSync("workspace", workspaceDir, { recursive: true });

    const names = Array.from({ length: options.processes }, (_, i) => String.fromCharCode(97 + i));
    // One after another: each boots a Next server, and two cores are shared.
    const nodes: ClusterNode[] = [];
    for (const name of names) {
      const logLines: string[] = [];
      const instanceId = `node-${name}`;
      const app = await startAppProcess({
        mongoUri,
        dataDir: path.join(dir, `data-${name}`),
        quiet: !options.verbose,
        onStderrLine: (line) => {
          options.onLogLine?.(name, line);
          logLines.push(readableLogLine(line));
          if (logLines.length > 60) logLines.splice(0, logLines.length - 60);
        },
        env: {
          WORKSPACE_DIR: workspaceDir,
          SESSION_SECRET: CLUSTER_SECRET,
          INSTANCE_ID: instanceId,
          LEASE_MS: String(leaseMs),
          REDIS_URL: redis?.url ?? "",
          // Behind Caddy every client has the proxy's address, as in the scaled deployment.
          MAX_CONNECTIONS_PER_ADDRESS: "0",
          ...options.env,
        },
      });
      started.push(app);
      nodes.push(clusterNode(name, instanceId, app, logLines));
    }

    return {
      nodes,
      redis,
      mongoUri,
      workspaceDir,
      leaseMs,
      node(name) {
        const node = nodes.find((n) => n.name === name);
        if (!node) throw new Error(`no node ${name} in this cluster`);
        return node;
      },
      alive: () => nodes.filter((n) => n.alive),
      logs: () => nodes.map((n) => `--- node ${n.name} (${n.alive ? "alive" : "dead"}) ---\n${n.log()}`).join("\n"),
      async close() {
        await Promise.all(started.map((app) => app.stop()));
        await redis?.stop();
        await mongo?.stop();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await Promise.all(started.map((app) => app.stop("SIGKILL")));
    await redis?.stop();
    await mongo?.stop();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

function clusterNode(name: string, instanceId: string, app: AppProcess, logLines: string[]): ClusterNode {
  const { child } = app;
  return {
    name,
    instanceId,
    baseUrl: app.baseUrl,
    port: app.port,
    get alive() {
      return child.exitCode === null && child.signalCode === null;
    },
    get exitCode() {
      return child.exitCode;
    },
    kill: () => app.stop("SIGKILL"),
    terminate: () => app.stop("SIGTERM"),
    async health() {
      const res = await fetch(`${app.baseUrl}/api/health`, { signal: AbortSignal.timeout(5_000) });
      return (await res.json()) as ClusterHealth;
    },
    log: () => logLines.join("\n"),
  };
}
