import type { AgentData, AgentEvent, EndReason, Publish } from "@/lib/contracts";
import type { WarnLog } from "@/lib/context/clean-result";
import type { ChatModel, ModelToolCall } from "@/lib/model/types";
import type { AttachmentArea } from "@/lib/tools/attachment-area";
import type { Tool } from "@/lib/tools/types";
import type { RunRef } from "@/lib/turn/data-event";
import type { LoopState, ToolInvoker, ToolOutcome } from "./agent-loop";
import type { ApprovalGate } from "./approval-gate";
import type { InputGate } from "./input-gate";
import type { BudgetStop } from "./budget-stop";
import type { SubagentDefinition } from "./definitions";
import type { ModelTracer } from "./model-trace";
import type { TurnTrace } from "@/lib/telemetry/turn-tracer";
import type { RunRegistry } from "./run-registry";
import type { ModelFor } from "./run-models";
import type { SubagentArgs } from "./subagent-tool";
import type { UsageMeter } from "./usage-meter";
import type { RemoteAgentTransport } from "@/lib/remote-agents/transport";

/**
 * The shapes the agent tree is made of, in one module so that the executor, a child run
 * and retry depend on them and not on each other.
 */

export interface ExecutorLimits {
  maxSpawnDepth: number;
  maxChildrenPerAgent: number;
  maxResultTokens: number;
  subagentTimeoutMs: number;
  contextTokens: number;
  /** Tool calls one model reply may have run; the rest are answered with an error (see agent-loop.ts). */
  maxToolCallsPerReply?: number;
  /** The stats footer under each result the parent reads (see narrative.ts). */
  resultFooter: boolean;
  /** A remote agent that sends nothing for this long is given up on; default DEFAULT_REMOTE_IDLE_MS (child-run.ts). */
  remoteIdleMs?: number;
}

export interface ExecutorDeps {
  model: ChatModel;
  systemModel: ChatModel;
  /** Each subagent's own model, prices and label (see run-models.ts). */
  modelFor: ModelFor;
  tools: Tool[] | ((toolsFor?: string) => Tool[]);
  definitions: SubagentDefinition[];
  /** The stored definition and version a definition came from (made in the app); absent: the operator's. */
  refOf?: (definition: SubagentDefinition) => { id: string; version: number } | undefined;
  workspaceDir: string;
  limits: ExecutorLimits;
  /** Reaches the remote agents that definitions with `a2a` name; absent: such a definition's run fails with a clear error. */
  remoteAgents?: RemoteAgentTransport;
  log?: WarnLog;
  now: () => number;
  newId: () => string;
}

/** The turn a run belongs to: where its events go, where steer/kill find it. */
export interface TurnScope {
  turnId: string;
  publish: Publish;
  registry: RunRegistry;
  /** The person the turn runs for (see ToolContext.ownerId). */
  ownerId?: string;
  /** Whose own tool connections the turn's agents get (TurnInput.toolsFor). */
  toolsFor?: string;
  /** Where calls that need a person's approval wait; without it, such calls are refused. */
  approvals?: ApprovalGate;
  /** Where a tool call's questions to a person wait; without it, a tool that asks reads an error. */
  inputs?: InputGate;
  /** Failed runs that may still be retried before their parent reads them (see retry.ts). */
  retries?: RetryWindows;
  /** Records each run's model requests (the audit record); absent: nothing is recorded. */
  trace?: ModelTracer;
  /** The chat's attachments, which every agent of the turn reads as `attachments/` (see ToolContext). */
  attachments?: AttachmentArea;
  /** The turn's trace (see lib/telemetry/turn-tracer.ts); absent: the turn is not traced. */
  telemetry?: TurnTrace;
}

/** One agent of the tree: the master (`run` null, depth 0) or a subagent. */
export interface AgentNode {
  run: RunRef;
  depth: number;
  activeChildren: number;
  meter: UsageMeter;
  signal: AbortSignal;
  state: LoopState;
  /** Publishes what this agent did, tagged with its run (see lib/turn/data-event.ts). */
  emit(data: AgentData): void;
  /** Stops the watchdogs of this run and every run above it (while a person decides); returns the release. */
  holdWatchdogs?: () => () => void;
  /** The budget that stopped this run, its own or one above it; undefined while none has. */
  readonly budgetStop?: BudgetStop;
}

export interface ChildSpec {
  parent: AgentNode;
  call: ModelToolCall;
  args: SubagentArgs;
  definition: SubagentDefinition;
  depth: number;
  /** Set by Retry, which must name the new run before it starts. */
  runId?: string;
  /** The failed run this one retries. */
  retryOf?: string;
}

/** The clean result, plus which run produced it and how it ended (Retry needs both). */
export interface ChildOutcome extends ToolOutcome {
  runId: string;
  endReason: EndReason;
}

/** A failed run, as Retry needs it to run the same definition again for the same parent. */
export interface FailedRun {
  runId: string;
  parent: AgentNode;
  /** The call the parent's model made (a retry's result is delivered under its id). */
  call: ModelToolCall;
  args: SubagentArgs;
  definition: SubagentDefinition;
}

/** What runs an agent's children: the executor, as a child run and Retry see it. */
export interface RunHost {
  readonly deps: ExecutorDeps;
  readonly scope: TurnScope;
  publish(event: AgentEvent): void;
  invokerFor(node: AgentNode, allowed: readonly string[] | "all", requireApproval?: readonly string[]): ToolInvoker;
  /** Validates and runs a `subagent` call under `parent` (limits, definitions, retry book). */
  spawn(parent: AgentNode, call: ModelToolCall, retryOf?: string): Promise<ToolOutcome>;
  /** Runs one child, limits already checked. */
  runChild(spec: ChildSpec): Promise<ChildOutcome>;
}

/** The retry book as the executor uses it (retry.ts). */
export interface RetryWindows {
  recordFailure(host: RunHost, run: FailedRun): void;
  settle(parent: AgentNode, calls: readonly ModelToolCall[]): Promise<Map<string, ToolOutcome>>;
}
