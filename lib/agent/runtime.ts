import type { Budget, ChatTurn, EndReason, ModelCallSink, Publish, RunsEnd, TurnStats } from "@/lib/contracts";
import { buildSessionContext } from "@/lib/context/build-session-context";
import { cleanSubagentContent } from "@/lib/context/clean-result";
import { ModelError, type ChatModel } from "@/lib/model/types";
import type { AttachmentArea } from "@/lib/tools/attachment-area";
import type { Tool } from "@/lib/tools/types";
import { dataEvent } from "@/lib/turn/data-event";
import { foldingPublisher } from "@/lib/turn/folding-publisher";
import { processInTurn } from "@/lib/turn/paths";
import { newTurn } from "@/lib/turn/reduce";
import { agentHooks } from "./agent-hooks";
import { createLoopState, runAgentLoop, type LoopState } from "./agent-loop";
import { ApprovalGate, type ApprovalDecision } from "./approval-gate";
import { InputGate, type PersonAnswer } from "./input-gate";
import { BUDGET_EXCEEDED, budgetStopText, turnBudgetText, watchBudget, watchQuota, type BudgetStop, type SpendGate } from "./budget-stop";
import { mergeDefinitions, type SubagentDefinition } from "./definitions";
import { withRemoteDescriptions } from "./remote-descriptions";
import type { RemoteAgentTransport } from "@/lib/remote-agents/transport";
import { AbortedError, describeError } from "./model-step";
import { traceModel, type ModelTracer } from "./model-trace";
import { masterSystemPrompt } from "./prompts";
import { promptMessage, type PromptAttachments } from "./prompt-attachments";
import { RetryBook, retryFirstStep, type RetryResult, type TurnRetry } from "./retry";
import { RunRegistry, type ControlResult } from "./run-registry";
import { createModelResolver, type ModelFor, type RunModel } from "./run-models";
import { SubagentExecutor, type AgentNode, type TurnScope } from "./subagent-executor";
import { UsageMeter, type Pricing } from "./usage-meter";
import { Watchdog } from "./watchdog";
import type { Logger } from "@/lib/log";
import { MASTER_AGENT_NAME } from "@/lib/telemetry/genai";
import type { TurnEnd, TurnTrace, TurnTracer } from "@/lib/telemetry/turn-tracer";

/**
 * The agent runtime the server drives: one `startTurn` per user message. It is pure of
 * transport — events leave through the injected `publish`, models and tools are injected —
 * and it guarantees exactly one `turn:ended` per turn, whatever happens (model failure,
 * cancel, a bug, a publisher that throws).
 */

export interface AgentRuntimeDeps {
  model: ChatModel;
  /** Condenses results and compacts context; defaults to `model`. */
  systemModel?: ChatModel;
  /**
   * Workspace tools; the `subagent` tool is added by the runtime. A function is read each
   * time an agent builds its tool list (MCP servers come, go and change their tools), for
   * the turn's `toolsFor` (a server each person signs in to lends only theirs).
   */
  tools: Tool[] | ((toolsFor?: string) => Tool[]);
  /** Awaited as a turn starts, before any agent lists its tools: opens that person's own tool connections. */
  prepareTools?: (toolsFor: string) => Promise<void>;
  definitions: SubagentDefinition[];
  workspaceDir: string;
  limits: {
    maxSpawnDepth: number;
    maxChildrenPerAgent: number;
    maxResultTokens: number;
    subagentTimeoutMs: number;
    /** The master's step limit; subagents use their definition's `maxSteps`. */
    maxSteps: number;
    /** Context budget of every agent's requests; over it, older context is compacted. */
    contextTokens: number;
    /** Tool calls one model reply may have run; the rest are answered with an error (see agent-loop.ts). */
    maxToolCallsPerReply?: number;
    /** The stats footer under each subagent result the parent reads (see narrative.ts). */
    resultFooter: boolean;
    /** The master's watchdog: a turn still running after this long is stopped (failed). */
    turnTimeoutMs: number;
    /** An approval nobody answers ends as denied ("expired") after this long; default 10 min. */
    approvalTimeoutMs?: number;
    /** A turn's budget when its input names none (TURN_BUDGET_TOKENS, TURN_BUDGET_USD); absent: unlimited. */
    turnBudget?: Budget;
    /** A remote agent that sends nothing for this long is given up on (A2A_IDLE_TIMEOUT_MS). */
    remoteIdleMs?: number;
  };
  /** Model prices, for the cost figures in stats and result footers. */
  pricing?: Pricing;
  /**
   * The model (and prices, and label) each subagent runs on. Defaults to "chat" → `model`,
   * "system" → `systemModel`; a definition with a model of its own needs a resolver that
   * can open it (server/agent/build-runtime.ts).
   */
  modelFor?: ModelFor;
  log?: Pick<Logger, "warn">;
  now?: () => number;
  newId?: () => string;
  /**
   * Traces each turn (server/telemetry/ when OTEL_* configures it). Absent: nothing is
   * traced and nothing is wrapped, so an untraced turn costs what it did before tracing.
   */
  tracer?: TurnTracer;
  /** Reaches remote A2A agents (server/remote-agents/); absent: a definition that names one fails when called. */
  remoteAgents?: RemoteAgentTransport;
}

export interface TurnInput {
  sessionId: string;
  turnId: string;
  prompt: string;
  /** The person the turn runs for: shared tool pools take turns between people. */
  ownerId?: string;
  /**
   * The chat's owner, whose own tool connections (MCP servers they signed in to) the
   * turn's agents get; absent: shared tools only.
   */
  toolsFor?: string;
  /** Earlier turns of the session, oldest first (not including this one). */
  history: ChatTurn[];
  publish: Publish;
  /**
   * The turn as the caller folds it from the published events (the server's session does):
   * the runtime reads runs' states there and folds nothing itself. Without it the runtime
   * keeps a fold of its own (tests, benchmarks).
   */
  turn?: () => ChatTurn | undefined;
  /** Set for a Retry after its turn ended: this turn first runs that subagent again. */
  retry?: TurnRetry;
  /** Receives every model request of the turn, any agent, as sent and as answered (the audit record). */
  recordModelCall?: ModelCallSink;
  /**
   * The model the chat chose for its master (and for subagents on "chat"); absent: the
   * runtime's own. Its label is recorded on the turn.
   */
  model?: RunModel;
  /** The chat's own instructions, added to the master's system prompt; absent or "": none. */
  instructions?: string;
  /** The turn this one follows, when not the one started before it (see `ChatTurn.parentTurnId`). */
  parentTurnId?: string | null;
  /** Who sent the prompt (see `ChatTurn.sentBy`); absent: not recorded. */
  sentBy?: string;
  /** The chat's attachments: every agent of the turn reads them as `attachments/`, and the master is told their names. */
  attachments?: AttachmentArea;
  /** The attachments this turn's prompt names: noted under it, and its images shown to a model that reads images. */
  promptAttachments?: PromptAttachments;
  /** What the whole turn may spend (the sender's choice); absent: `limits.turnBudget`. */
  budget?: Budget;
  /** The person's quota, told of every addition to the turn's spend; absent: none. */
  quota?: SpendGate;
  /** The subagent definitions of this turn beside the runtime's own (read as the turn starts); absent: the runtime's own alone. */
  agents?: TurnAgents;
}

/** Which stored definition, at which version, a run ran with (absent for the operator's and the built-ins). */
export interface DefinitionRef {
  id: string;
  version: number;
}

/** A definition a turn adds: made in the app, with where it is stored and, for a model key, the model the catalog opened. */
export interface TurnDefinition {
  definition: SubagentDefinition;
  ref?: DefinitionRef;
  model?: RunModel;
}

/**
 * The definitions one turn may use: the runtime's own (the operator's) minus the names the
 * chat turned off, then `add`, each replacing one of the same name.
 */
export interface TurnAgents {
  add: readonly TurnDefinition[];
  off: readonly string[];
}

export interface TurnResult {
  status: "completed" | "failed" | "cancelled";
  stats: TurnStats;
  error?: string;
  /** Set when a budget stopped the master (status `failed`). */
  endReason?: Extract<EndReason, "budget_exceeded">;
  /** The whole turn, folded from its own events by the one reducer: what every viewer holds. */
  turn: ChatTurn;
}

export interface TurnHandle {
  done: Promise<TurnResult>;
  cancel(): void;
  steer(runId: string, message: string): ControlResult;
  kill(runId: string): ControlResult;
  /** A person's decision on a call waiting for approval (`runId` null = the master's call). */
  decide?(callId: string, runId: string | null | undefined, decision: ApprovalDecision): ControlResult;
  /** A person's answer to a question a call asks (`runId` as for `decide`). */
  answer?(callId: string, runId: string | null | undefined, answer: PersonAnswer): ControlResult;
  /** Runs a failed, killed or timed-out subagent of this turn again (see retry.ts). */
  retry?(runId: string, task?: string): RetryResult;
}

export interface AgentRuntime {
  startTurn(input: TurnInput): TurnHandle;
}

export function createAgentRuntime(deps: AgentRuntimeDeps): AgentRuntime {
  const now = deps.now ?? Date.now;
  const newId = deps.newId ?? (() => crypto.randomUUID());
  const systemModel = deps.systemModel ?? deps.model;
  const modelFor = deps.modelFor ?? createModelResolver(deps.definitions, { chat: deps.model, system: systemModel, pricing: deps.pricing });
  return {
    startTurn(input) {
      const controller = new AbortController();
      const registry = new RunRegistry();
      const retries = new RetryBook();
      const telemetry = startTrace(deps, input);
      const record = turnRecord(input, deps.log, telemetry);
      // Subagents have their own watchdogs; this one bounds the whole turn, master included
      // (time spent waiting for a person's approval does not count; see Watchdog).
      const watchdog = new Watchdog(deps.limits.turnTimeoutMs, () => controller.abort(WATCHDOG), now);
      const approvals = new ApprovalGate({ timeoutMs: deps.limits.approvalTimeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS, now });
      // A tool's question waits as long as an approval may: the same person, the same wait.
      const inputs = new InputGate({ timeoutMs: deps.limits.approvalTimeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS, now });
      const run = () =>
        runTurn(
          input,
          controller,
          registry,
          record,
          withChosenModel(withTurnAgents({ ...deps, systemModel, modelFor, now, newId }, input.agents), input.model),
          { approvals, inputs, watchdog },
          retries,
          telemetry,
        );
      const done = insideTrace(telemetry, deps.log, run).finally(() => watchdog.clear());
      // A person's commands reach the turn here, on the process running it, whichever
      // process the person is connected to: each is noted on the turn's trace first.
      const note = (command: Parameters<TurnTrace["command"]>[0]) => guard(deps.log, () => telemetry?.command(command));
      return {
        done,
        cancel: () => {
          note({ kind: "cancel" });
          if (!controller.signal.aborted) controller.abort("cancelled");
        },
        steer: (runId, message) => {
          note({ kind: "steer", runId, message });
          return registry.steer(runId, message);
        },
        kill: (runId) => {
          note({ kind: "kill", runId });
          return registry.kill(runId);
        },
        decide: (callId, runId, decision) => {
          note({ kind: "decide", callId, runId, approve: decision.approve });
          return approvals.decide(callId, runId, decision);
        },
        answer: (callId, runId, answer) => {
          note({ kind: "answer", callId, runId, action: answer.action });
          return inputs.answer(callId, runId, answer);
        },
        retry: (runId, task) => {
          note({ kind: "retry", runId });
          return retries.retry(runId, task, (id) => processInTurn(record.turn(), id)?.status);
        },
      };
    },
  };
}

const WATCHDOG = "watchdog_timeout";

/**
 * The chat's chosen model answers for the master, and for every subagent that runs on
 * "chat", at its prices; the others run as configured.
 */
function withChosenModel(deps: ResolvedDeps, chosen: RunModel | undefined): ResolvedDeps {
  if (!chosen) return deps;
  const { modelFor } = deps;
  return {
    ...deps,
    model: chosen.model,
    pricing: chosen.pricing,
    modelFor: (definition) => (definition.model === "chat" ? chosen : modelFor(definition)),
  };
}
export const DEFAULT_APPROVAL_TIMEOUT_MS = 10 * 60_000;

/**
 * The turn's own list of definitions: what the master reads in its prompt and the
 * subagent tool's description, what it may spawn, and the model and stored version of each.
 */
function withTurnAgents(deps: ResolvedDeps, agents: TurnAgents | undefined): ResolvedDeps {
  if (!agents) return deps;
  const off = new Set(agents.off);
  const definitions = mergeDefinitions(
    deps.definitions.filter((d) => !off.has(d.name)),
    agents.add.map((a) => a.definition),
  );
  const added = new Map(agents.add.map((a) => [a.definition, a]));
  const { modelFor } = deps;
  return {
    ...deps,
    definitions,
    modelFor: (definition) => added.get(definition)?.model ?? modelFor(definition),
    refOf: (definition) => added.get(definition)?.ref,
  };
}

type ResolvedDeps = AgentRuntimeDeps & {
  systemModel: ChatModel;
  modelFor: ModelFor;
  now: () => number;
  newId: () => string;
  refOf?: (definition: SubagentDefinition) => DefinitionRef | undefined;
};

/** Where the turn's events go, and the turn folded from them: the caller's fold, or one of our own. */
interface TurnRecord {
  publish: Publish;
  turn(): ChatTurn;
}

function turnRecord(input: TurnInput, log: AgentRuntimeDeps["log"], telemetry: TurnTrace | undefined): TurnRecord {
  // A publisher that throws must not take the turn down with it (nor skip `turn:ended`).
  const publish: Publish = (event) => {
    try {
      input.publish(event);
    } catch (error) {
      log?.warn("publishing an agent event failed", { type: event.type, error: describeError(error) });
    }
    if (telemetry) guard(log, () => telemetry.event(event));
  };
  const read = input.turn;
  if (!read) return foldingPublisher(input.sessionId, publish);
  const empty = newTurn({ sessionId: input.sessionId, turnId: input.turnId, prompt: input.prompt, createdAt: "" });
  return { publish, turn: () => read() ?? empty };
}

async function runTurn(
  input: TurnInput,
  controller: AbortController,
  registry: RunRegistry,
  record: TurnRecord,
  resolved: ResolvedDeps,
  waits: { approvals: ApprovalGate; inputs: InputGate; watchdog: Watchdog },
  retries?: RetryBook,
  telemetry?: TurnTrace,
): Promise<TurnResult> {
  const { publish } = record;
  let deps = resolved;
  const started = deps.now();
  const chosen = input.model;
  const { signal } = controller;
  const meter = new UsageMeter(undefined, deps.pricing);
  const budget = input.budget ?? deps.limits.turnBudget;
  let budgetStop: BudgetStop | undefined;
  const stopFor = (why: BudgetStop) => {
    if (signal.aborted) return;
    budgetStop = why;
    controller.abort(BUDGET_EXCEEDED);
  };
  watchBudget(meter, budget, "turn", stopFor);
  watchQuota(meter, input.quota, stopFor);
  const { turnId } = input;
  let state: LoopState | undefined;
  let result: Omit<TurnResult, "stats" | "turn">;
  let runsEnd: RunsEnd | undefined;
  let errorType: string | undefined;
  let answer: string | undefined;
  try {
    publish({
      type: "turn:started",
      turnId,
      prompt: input.prompt,
      createdAt: new Date(started).toISOString(),
      ...(chosen ? { model: chosen.label } : {}),
      ...(input.parentTurnId !== undefined ? { parentTurnId: input.parentTurnId } : {}),
      ...(input.sentBy !== undefined ? { sentBy: input.sentBy } : {}),
      ...(input.promptAttachments?.refs.length ? { attachments: input.promptAttachments.refs } : {}),
      ...(budget ? { budget } : {}),
    });
    deps = await withRemoteDescriptions(deps, signal);
    state = createLoopState([
      {
        role: "system",
        content: masterSystemPrompt(deps.definitions, deps.workspaceDir, {
          instructions: input.instructions,
          attachments: await attachedNames(input, deps.log),
        }),
      },
      ...buildSessionContext(input.history, deps.log),
      await promptMessage(input.prompt, input.promptAttachments, chosen?.images === true, deps.log),
    ]);
    const sink = input.recordModelCall;
    const recorded: ModelTracer = sink
      ? (model, runId, purpose) => traceModel(model, { turnId, runId, purpose }, sink, deps)
      : (model) => model;
    const trace: ModelTracer = telemetry
      ? (model, runId, purpose) => telemetry.model(recorded(model, runId, purpose), runId, purpose)
      : recorded;
    const scope: TurnScope = {
      turnId,
      publish,
      registry,
      ownerId: input.ownerId,
      toolsFor: input.toolsFor,
      approvals: waits.approvals,
      inputs: waits.inputs,
      retries,
      trace,
    };
    if (telemetry) scope.telemetry = telemetry;
    if (input.attachments) scope.attachments = input.attachments;
    // A connection that cannot open leaves its tools out; the turn runs with the rest.
    if (input.toolsFor && deps.prepareTools) await deps.prepareTools(input.toolsFor).catch(() => undefined);
    const executor = new SubagentExecutor(deps, scope);
    const master: AgentNode = {
      run: null,
      depth: 0,
      activeChildren: 0,
      meter,
      signal,
      state,
      emit: (data) => publish(dataEvent(turnId, null, data)),
      holdWatchdogs: () => waits.watchdog.hold(),
      get budgetStop() {
        return budgetStop;
      },
    };
    if (input.retry) {
      await retryFirstStep(executor, master, input.retry, (content) => cleanSubagentContent(content, deps.log));
      meter.steps = state.steps;
      master.emit({ kind: "usage", stats: meter.stats(deps.now() - started) });
    }
    const outcome = await runAgentLoop(
      {
        model: trace(deps.model, null, "chat"),
        systemModel: trace(deps.systemModel, null, "system"),
        invoker: executor.invokerFor(master, "all"),
        maxSteps: deps.limits.maxSteps,
        maxToolCallsPerReply: deps.limits.maxToolCallsPerReply,
        contextTokens: deps.limits.contextTokens,
        signal,
        log: deps.log,
        hooks: agentHooks(master, deps.now, started, telemetry),
      },
      state,
    );
    if (outcome.kind === "answered") {
      result = { status: "completed" };
      answer = outcome.answer;
    } else {
      result = { status: "failed", error: `The agent used all ${deps.limits.maxSteps} steps without reaching a final answer.` };
      errorType = "max_steps";
    }
  } catch (error) {
    if (signal.reason === BUDGET_EXCEEDED && budgetStop) {
      result = { status: "failed", error: turnBudgetText(budgetStop), endReason: "budget_exceeded" };
      const error = budgetStopText(budgetStop, true);
      runsEnd = { endReason: "budget_exceeded", error, note: "The turn stopped at its budget before anyone answered." };
      errorType = BUDGET_EXCEEDED;
    } else if (signal.reason === WATCHDOG) {
      result = { status: "failed", error: `Stopped by the watchdog after ${deps.limits.turnTimeoutMs / 1000} s (TURN_TIMEOUT_MS).` };
      errorType = WATCHDOG;
    } else if (signal.aborted || error instanceof AbortedError) result = { status: "cancelled" };
    else {
      result = { status: "failed", error: describeError(error) };
      errorType = error instanceof ModelError ? error.code : error instanceof Error ? error.name : "_OTHER";
    }
  }
  const stats = meter.stats(deps.now() - started);
  if (telemetry) {
    const end: TurnEnd = { status: result.status, stats };
    if (errorType) end.errorType = errorType;
    if (result.error) end.error = result.error;
    if (answer !== undefined) end.answer = answer;
    guard(deps.log, () => telemetry.end(end));
  }
  publish({
    type: "turn:ended",
    turnId,
    status: result.status,
    stats,
    ...(result.error ? { error: result.error } : {}),
    ...(result.endReason ? { endReason: result.endReason } : {}),
    ...(runsEnd ? { runsEnd } : {}),
    endedAt: new Date(deps.now()).toISOString(),
  });
  return { ...result, stats, turn: record.turn() };
}

/** The turn's trace, when a tracer is configured; a tracer that fails leaves the turn untraced, never failed. */
function startTrace(deps: AgentRuntimeDeps, input: TurnInput): TurnTrace | undefined {
  if (!deps.tracer) return undefined;
  try {
    return deps.tracer.startTurn({ sessionId: input.sessionId, turnId: input.turnId, prompt: input.prompt, agentName: MASTER_AGENT_NAME });
  } catch (error) {
    deps.log?.warn("could not start the turn's trace", { error: describeError(error) });
    return undefined;
  }
}

/**
 * Runs the turn inside its trace's context, so whatever it logs (here, in the session that
 * folds its events, in the store that writes them) names the turn's trace. A tracer that
 * throws before the turn started leaves it running untraced; the turn runs exactly once.
 */
function insideTrace<T>(telemetry: TurnTrace | undefined, log: AgentRuntimeDeps["log"], run: () => Promise<T>): Promise<T> {
  if (!telemetry) return run();
  let started = false;
  try {
    return telemetry.within(() => {
      started = true;
      return run();
    });
  } catch (error) {
    if (started) throw error;
    log?.warn("tracing the turn failed", { error: describeError(error) });
    return run();
  }
}

/** Tracing is beside the turn, never in its way: a tracer that throws is logged and the turn goes on. */
function guard(log: AgentRuntimeDeps["log"], run: () => void): void {
  try {
    run();
  } catch (error) {
    log?.warn("tracing the turn failed", { error: describeError(error) });
  }
}

/** The names of the chat's attachments for the master's prompt; a failed listing only leaves them out (the tools still reach them). */
async function attachedNames(input: TurnInput, log: AgentRuntimeDeps["log"]): Promise<string[]> {
  try {
    return (await input.attachments?.list())?.map((a) => a.name) ?? [];
  } catch (error) {
    log?.warn("could not list the chat's attachments for the prompt", { error: describeError(error) });
    return [];
  }
}
