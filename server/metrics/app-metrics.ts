import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import type { AgentEvent, ModelCallRecord } from "@/lib/contracts";
import { EventMetrics, type MetricUpdate } from "@/lib/metrics/event-metrics";
import type { ClusterObserver } from "@/server/cluster/observer";
import type { OutboxMeter } from "@/server/data/write-outbox";
import type { SessionObserver } from "@/server/sessions/session-observer";

/**
 * The app's Prometheus metrics, on a registry of its own (never prom-client's global one:
 * tests build several apps in one process, and each must count only its own). Counters
 * move from the agent events the sessions already publish (lib/metrics/event-metrics.ts),
 * the write outboxes and the cluster report to it through the small ports they declare,
 * and the gauges of what is open now are read when scraped. docs/metrics.md says what each
 * one means.
 */
export interface AppMetrics {
  registry: Registry;
  /** Handed to the session registry: every session shows it its events and model requests. */
  sessions: SessionObserver;
  /** Handed to the cluster (REDIS_URL): relay lag and ghost takeovers. */
  cluster: ClusterObserver;
  /** Reads what is open now when scraped: sockets and sessions of this process. */
  readGauges(read: OpenNow): void;
}

export interface OpenNow {
  sockets(): number;
  sessions(): number;
  runningTurns(): number;
}

/** Seconds: a tool call or a model request runs from milliseconds to minutes. */
const DURATION_BUCKETS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];
/** The GenAI semantic conventions' buckets for token usage. */
const TOKEN_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864];
/** Relay lag, seconds: milliseconds when all is well, seconds when Redis or a process is slow. */
const LAG_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export function createAppMetrics(options: { defaultMetrics?: boolean } = {}): AppMetrics {
  const registry = new Registry();
  const registers = [registry];
  if (options.defaultMetrics !== false) collectDefaultMetrics({ register: registry });

  const turnsStarted = new Counter({ name: "delegate_turns_started_total", help: "Turns started in this process.", registers });
  const turnsEnded = new Counter({
    name: "delegate_turns_ended_total",
    help: "Turns ended in this process, by how they ended (status, or end reason when it says more).",
    labelNames: ["reason"] as const,
    registers,
  });
  const runsStarted = new Counter({
    name: "delegate_subagent_runs_started_total",
    help: "Subagent runs started in this process.",
    registers,
  });
  const runsEnded = new Counter({
    name: "delegate_subagent_runs_ended_total",
    help: "Subagent runs ended in this process, by end reason.",
    labelNames: ["reason"] as const,
    registers,
  });
  const toolCalls = new Histogram({
    name: "delegate_tool_call_duration_seconds",
    help: "Tool calls of every agent, from the model's request to the result, by tool and how they ended.",
    labelNames: ["tool", "status"] as const,
    buckets: DURATION_BUCKETS,
    registers,
  });
  const approvals = new Gauge({ name: "delegate_approvals_waiting", help: "Tool calls waiting for a person's approval now.", registers });
  const budgetStops = new Counter({
    name: "delegate_budget_stops_total",
    help: "Budget stops, counted where they happened: a run's own budget, the turn's, or the person's quota.",
    labelNames: ["whose"] as const,
    registers,
  });
  const operationDuration = new Histogram({
    name: "gen_ai_client_operation_duration_seconds",
    help: "GenAI operation duration: each model request of any agent, and of the system model (compaction, condensation).",
    labelNames: ["gen_ai_operation_name", "gen_ai_request_model", "delegate_purpose", "error_type"] as const,
    buckets: DURATION_BUCKETS,
    registers,
  });
  const tokenUsage = new Histogram({
    name: "gen_ai_client_token_usage",
    help: "Measures number of input and output tokens used, per model request, as the provider reported them.",
    labelNames: ["gen_ai_operation_name", "gen_ai_request_model", "gen_ai_token_type"] as const,
    buckets: TOKEN_BUCKETS,
    registers,
  });
  const outboxDepth = new Gauge({
    name: "delegate_event_store_queue_depth",
    help: "Event-store writes queued in this process's chat outboxes (waiting while the database is away).",
    registers,
  });
  const writesGivenUp = new Counter({
    name: "delegate_event_store_writes_given_up_total",
    help: "Event-store writes not stored: shed past an outbox's bound, or refused by the database.",
    labelNames: ["reason"] as const,
    registers,
  });
  const relayLag = new Histogram({
    name: "delegate_cluster_relay_lag_seconds",
    help: "Cluster: from another process appending an event to its chat's Redis stream to this process reading it.",
    buckets: LAG_BUCKETS,
    registers,
  });
  const takeovers = new Counter({
    name: "delegate_cluster_lease_takeovers_total",
    help: "Cluster: leases of processes that stopped renewing them that this process took over (their turns ended as ghost_sweep).",
    registers,
  });
  let openNow: OpenNow | undefined;
  new Gauge({
    name: "delegate_sockets",
    help: "Socket.IO connections open on this process.",
    registers,
    collect() {
      this.set(openNow?.sockets() ?? 0);
    },
  });
  new Gauge({
    name: "delegate_live_sessions",
    help: "Chat sessions open in this process's memory.",
    registers,
    collect() {
      this.set(openNow?.sessions() ?? 0);
    },
  });
  new Gauge({
    name: "delegate_turns_running",
    help: "Turns running in this process now.",
    registers,
    collect() {
      this.set(openNow?.runningTurns() ?? 0);
    },
  });
  // Zero from the start, so a rate over an absent series never hides a first stop.
  for (const whose of ["run", "turn", "quota"] as const) budgetStops.inc({ whose }, 0);
  for (const reason of ["shed", "refused"] as const) writesGivenUp.inc({ reason }, 0);

  const apply = (update: MetricUpdate) => {
    switch (update.kind) {
      case "turn_started":
        return turnsStarted.inc();
      case "turn_ended":
        return turnsEnded.inc({ reason: update.reason });
      case "run_started":
        return runsStarted.inc();
      case "run_ended":
        return runsEnded.inc({ reason: update.reason });
      case "tool_call":
        return toolCalls.observe({ tool: update.tool, status: update.status }, update.seconds);
      case "approvals_waiting":
        return approvals.inc(update.delta);
      case "budget_stop":
        return budgetStops.inc({ whose: update.whose });
      case "model_request": {
        const { operation, model } = update;
        operationDuration.observe(
          {
            gen_ai_operation_name: operation,
            gen_ai_request_model: model,
            delegate_purpose: update.purpose,
            error_type: update.error ? "error" : "",
          },
          update.seconds,
        );
        if (update.tokens) {
          const labels = { gen_ai_operation_name: operation, gen_ai_request_model: model };
          tokenUsage.observe({ ...labels, gen_ai_token_type: "input" }, update.tokens.input);
          tokenUsage.observe({ ...labels, gen_ai_token_type: "output" }, update.tokens.output);
        }
        return;
      }
    }
  };

  const events = new EventMetrics();
  const outbox: OutboxMeter = {
    queued: (delta) => outboxDepth.inc(delta),
    givenUp: (reason, count) => writesGivenUp.inc({ reason }, count),
  };
  return {
    registry,
    sessions: {
      event: (event: AgentEvent) => events.event(event).forEach(apply),
      modelCall: (record: ModelCallRecord) => events.modelRequest(record).forEach(apply),
      outbox,
    },
    cluster: {
      relayLag: (seconds) => relayLag.observe(seconds),
      takeover: () => takeovers.inc(),
    },
    readGauges(read) {
      openNow = read;
    },
  };
}
