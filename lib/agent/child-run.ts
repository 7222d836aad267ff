import { toolOutputOf, type EndReason, type SubagentDataPayload } from "@/lib/contracts";
import type { ModelToolCall } from "@/lib/model/types";
import { createLoopState, runAgentLoop, type ToolOutcome } from "./agent-loop";
import { condenseResult } from "./condense";
import type { SubagentDefinition } from "./definitions";
import { AbortedError, describeError } from "./model-step";
import { castNarrative, runLabel } from "./narrative";
import { buildSpawnPacket, childMessages, renderSpawnPacket } from "./spawn-packet";
import type { SubagentArgs } from "./subagent-tool";
import type { AgentNode, SubagentExecutor } from "./subagent-executor";
import { UsageMeter } from "./usage-meter";
import { Watchdog } from "./watchdog";

/**
 * One subagent run, start to end: spawn packet → `subagent_started` → the child's own loop
 * (its events forwarded as `subagent_data` through an isolated emitter tagged with runId,
 * parentRunId and depth) → `subagent_completed`/`subagent_error` → condensation and
 * narrative casting → `agent:complete` with the clean result and the full process (the
 * turn reducer's fold of the run's own events, so it equals what every viewer holds).
 * The caller gets only the clean text (seed 000), built from the final answer alone.
 *
 * The run ends for one of four reasons: completed, failed (model error, step limit),
 * killed (by steer/kill control or because its parent stopped) or watchdog_timeout.
 */

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

export async function runChild(executor: SubagentExecutor, spec: ChildSpec): Promise<ChildOutcome> {
  const { deps, scope } = executor;
  const { parent, call, args, definition, depth } = spec;
  const runId = spec.runId ?? deps.newId();
  const started = deps.now();
  const startedAt = new Date(started).toISOString();
  const runRef = { turnId: scope.turnId, runId, parentRunId: parent.runId, depth };
  const runModel = deps.modelFor(definition);
  const chatModel = scope.trace ? scope.trace(runModel.model, runId, "chat") : runModel.model;
  // Compaction inside the run and the condensation of its answer, recorded under the run.
  const systemModel = scope.trace ? scope.trace(deps.systemModel, runId, "system") : deps.systemModel;

  const controller = new AbortController();
  const stop = (reason: EndReason) => {
    if (!controller.signal.aborted) controller.abort(reason);
  };
  // A parent that stops (cancel, kill, its own watchdog) takes its children with it.
  const onParentAbort = () => stop("killed");
  if (parent.signal.aborted) stop("killed");
  else parent.signal.addEventListener("abort", onParentAbort, { once: true });
  // Held while a call of this run or of a run below it waits for a person (see Watchdog).
  const watchdog = new Watchdog(deps.limits.subagentTimeoutMs, () => stop("watchdog_timeout"), deps.now);
  scope.registry.add({ runId, status: "running", inbox: [], abort: stop });

  const packet = buildSpawnPacket({
    runId,
    task: args.task,
    objective: args.objective,
    artifactRefs: args.artifactRefs ?? [],
    depth,
    maxDepth: deps.limits.maxSpawnDepth,
    workspaceDir: deps.workspaceDir,
    parentMessages: parent.state.messages,
  });
  const prompt = `${renderSpawnPacket(packet)}\n\n## Task\n${args.task}`;
  const state = createLoopState(childMessages(definition, packet));
  const emitData = (data: SubagentDataPayload) => executor.publish({ type: "subagent_data", ...runRef, data });
  const node: AgentNode = {
    runId,
    depth,
    activeChildren: 0,
    meter: new UsageMeter(parent.meter, runModel.pricing),
    signal: controller.signal,
    state,
    emitData,
    holdWatchdogs: () => {
      const mine = watchdog.hold();
      const above = parent.holdWatchdogs?.();
      return () => {
        mine();
        above?.();
      };
    },
  };
  executor.publish({ type: "subagent_started", ...runRef, callId: call.id, name: definition.name, task: args.task, prompt, startedAt, model: runModel.label, ...(spec.retryOf ? { retryOf: spec.retryOf } : {}) });

  let endReason: EndReason = "completed";
  let error: string | undefined;
  let answer = "";
  let steers = 0;
  let stepStartedAt = startedAt;
  try {
    const outcome = await runAgentLoop(
      {
        model: chatModel,
        systemModel,
        invoker: executor.invokerFor(node, definition.allowedTools, definition.requireApproval),
        maxSteps: definition.maxSteps,
        contextTokens: deps.limits.contextTokens,
        objective: args.objective ?? args.task,
        signal: controller.signal,
        drainSteering: () => scope.registry.drain(runId),
        hasSteering: () => (scope.registry.get(runId)?.inbox.length ?? 0) > 0,
        log: deps.log,
        hooks: {
          onText: (step, text, offset) => emitData({ kind: "token", step, offset, text }),
          onThinking: (step, text, offset) => emitData({ kind: "thinking", step, offset, text }),
          onToolCall: (step, c) => emitData({ kind: "tool_call", step, callId: c.id, name: c.name, parameters: c.arguments, at: new Date(deps.now()).toISOString() }),
          onToolResult: (callId, content, status) => emitData({ kind: "tool_result", callId, ...toolOutputOf(content), status, at: new Date(deps.now()).toISOString() }),
          onChatUsage: (usage) => node.meter.addChat(usage),
          onSystemUsage: (usage) => node.meter.addSystem(usage),
          // Recorded where it was injected, so the panel shows it in sequence (its parent never sees it).
          onSteer: (step, message) => emitData({ kind: "steer", step, index: steers++, message, at: new Date(deps.now()).toISOString() }),
          onStepStart: () => {
            stepStartedAt = new Date(deps.now()).toISOString();
          },
          onStepEnd: (steps) => {
            node.meter.steps = steps;
            const stepTiming = { step: steps - 1, startedAt: stepStartedAt, endedAt: new Date(deps.now()).toISOString() };
            emitData({ kind: "usage", chat: { ...node.meter.chat }, system: { ...node.meter.system }, steps, stepTiming });
          },
        },
      },
      state,
    );
    if (outcome.kind === "answered") answer = outcome.answer;
    else {
      endReason = "failed";
      error = `Reached its limit of ${definition.maxSteps} steps without a final answer.`;
    }
  } catch (e) {
    if (e instanceof AbortedError || controller.signal.aborted) {
      endReason = controller.signal.reason === "watchdog_timeout" ? "watchdog_timeout" : "killed";
      error =
        endReason === "watchdog_timeout"
          ? `Stopped by the watchdog after ${deps.limits.subagentTimeoutMs} ms.`
          : parent.signal.aborted
            ? "Stopped because its parent stopped."
            : "Killed before it finished.";
    } else {
      endReason = "failed";
      error = describeError(e);
    }
  } finally {
    watchdog.clear();
    parent.signal.removeEventListener("abort", onParentAbort);
    scope.registry.end(runId, endReason);
  }

  node.meter.steps = state.steps;
  const ended = deps.now();
  const endedAt = new Date(ended).toISOString();
  const stats = node.meter.stats(ended - started);
  if (endReason === "completed") {
    executor.publish({ type: "subagent_completed", ...runRef, response: answer, stats, endReason, endedAt });
  } else {
    executor.publish({ type: "subagent_error", ...runRef, error: error ?? "Failed.", stats, endReason, endedAt });
  }

  // Condensation is the parent's work: its system usage is charged to the parent.
  const condensed = await condenseResult({
    text: answer,
    maxResultTokens: deps.limits.maxResultTokens,
    model: systemModel,
    signal: parent.signal,
  });
  parent.meter.addSystem(condensed.usage);
  const clean = castNarrative({
    label: runLabel(definition.name, runId),
    endReason,
    level: condensed.level,
    body: condensed.body,
    stats,
    originalTokens: condensed.originalTokens,
    bodyTokens: condensed.bodyTokens,
    error,
    footer: deps.limits.resultFooter,
  });
  const process = scope.processOf(runId);
  if (process) {
    executor.publish({ type: "agent:complete", turnId: scope.turnId, callId: call.id, runId, parentRunId: parent.runId, ...toolOutputOf(clean), subagent: process });
  }
  return { content: clean, status: endReason === "completed" ? "success" : "error", runId, endReason };
}
