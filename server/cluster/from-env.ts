import type { Env } from "@/lib/env";
import type { Logger } from "@/lib/log";
import type { Models } from "@/models";
import type { ChatStore } from "@/server/data/store";
import { Cluster, defaultInstanceId } from "./cluster";
import { mongoLeases } from "./lease";
import type { ClusterObserver } from "./observer";

/**
 * The process's cluster membership from its configuration: with REDIS_URL, a connected
 * Cluster; without, undefined and not one Redis connection attempted (the app then runs
 * as one process, with no Redis connection).
 */
export async function clusterFromEnv(
  config: Pick<Env, "REDIS_URL" | "LEASE_MS" | "INSTANCE_ID">,
  deps: { models: Pick<Models, "TurnLease">; store: ChatStore; log?: Logger; observe?: ClusterObserver },
): Promise<{ instanceId: string; cluster: Cluster | undefined }> {
  const instanceId = config.INSTANCE_ID ?? defaultInstanceId();
  if (!config.REDIS_URL) return { instanceId, cluster: undefined };
  const cluster = await Cluster.connect(
    { redisUrl: config.REDIS_URL, instanceId, leaseMs: config.LEASE_MS, ...(deps.observe ? { observe: deps.observe } : {}) },
    { leases: mongoLeases(deps.models), store: deps.store, log: deps.log },
  );
  return { instanceId, cluster };
}
