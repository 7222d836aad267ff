import { toolOutputOf, type EndReason } from "@/lib/contracts";
import { dataEvent } from "@/lib/turn/data-event";
import { agentHooks } from "./agent-hooks";
import { createLoopState, runAgentLoop, type LoopState } from "./agent-loop";
import type { AgentNode, ChildOutcome, ChildSpec, RunHost } from "./agent-node";
import { condenseResult } from "./condense";
import { AbortedError, describeError } from "./model-step";
import { castNarrative, runLabel } from "./narrative";
import { BUDGET_EXCEEDED, budgetStopText, watchBudget, type BudgetStop } from "./budget-stop";
import { buildSpawnPacket, childMessages, renderRemoteTask, renderSpawnPacket } from "./spawn-packet";
import { UsageMeter } from "./usage-meter";
import { Watchdog } from "./watchdog";
import type { ControlResult } from "./run-registry";
import type { InputGate } from "./input-gate";
import { MAX_INPUT_MESSAGE_CHARS, type InputForm } from "@/lib/contracts";
import { remoteAgentLabel } from "@/lib/remote-agents/remote-ref";
import { runRemoteAgent } from "@/lib/remote-agents/run-remote";

/**
 * One subagent run, start to end: spawn packet → `subagent_started` → the child's own loop
 * (its events forwarded as `subagent_data` through an isolated emitter tagged with runId,
 * parentRunId and depth) → `subagent_completed`/`subagent_error` → condensation and
 * narrative casting → `agent:complete` with the clean result (the process itself every
 * holder has folded from the run's own events).
 * The caller gets only the clean text, built from the final answer alone (see
 * docs/architecture.md, "Clean context").
 *
 * A definition with `a2a` runs on a remote agent instead of the loop (run-remote.ts): the
 * same events, the same end reasons, the same clean result.
 *
 * The run ends for one of five reasons: completed, failed (model error, step limit),
 * killed (by steer/kill control or because its parent stopped), watchdog_timeout or
 * budget_exceeded (its definition's budget, or a budget above it, was reached after a
 * model response: the step's calls are not run, and the parent reads the text of the step
 * it stopped in, its last, as its partial answer).
 */

/** How long a remote agent may send nothing before its run is given up on (A2A_IDLE_TIMEOUT_MS). */
export const DEFAULT_REMOTE_IDLE_MS = 120_000;

export async function runChild(host: RunHost, spec: ChildSpec): Promise<ChildOutcome> {
  const { deps, scope } = host;
  const { parent, call, args, definition, depth } = spec;
  const runId = spec.runId ?? deps.newId();
  const started = deps.now();
  const startedAt = new Date(started).toISOString();
  const run = { runId, parentRunId: parent.run?.runId ?? null, depth };
  const runRef = { turnId: scope.turnId, ...run };
  const remote = definition.a2a;
  const runModel = remote ? { model: deps.model, pricing: undefined, label: remoteAgentLabel(remote) } : deps.modelFor(definition);
  const ref = deps.refOf?.(definition);
  const chatModel = scope.trace ? scope.trace(runModel.model, runId, "chat") : runModel.model;
  // Compaction inside the run and the condensation of its answer, recorded under the run.
  const systemModel = scope.trace ? scope.trace(deps.systemModel, runId, "system") : deps.systemModel;

  const controller = new AbortController();
  const stop = (reason: EndReason) => {
    if (!controller.signal.aborted) controller.abort(reason);
  };
  let budgetStop: BudgetStop | undefined;
  let inheritedStop = false;
  // A parent that stops (cancel, kill, its own watchdog) takes its children with it; stopped by a budget, for that reason.
  const onParentAbort = () => {
    budgetStop = parent.budgetStop;
    inheritedStop = budgetStop !== undefined;
    stop(budgetStop ? BUDGET_EXCEEDED : "killed");
  };
  if (parent.signal.aborted) onParentAbort();
  else parent.signal.addEventListener("abort", onParentAbort, { once: true });
  // Held while a call of this run or of a run below it waits for a person (see Watchdog).
  const timeoutMs = definition.timeoutMs ?? deps.limits.subagentTimeoutMs;
  const watchdog = new Watchdog(timeoutMs, () => stop("watchdog_timeout"), deps.now);
  let followUp: ((text: string) => Promise<void>) | undefined;
  scope.registry.add({
    runId,
    status: "running",
    inbox: [],
    abort: stop,
    ...(remote ? { steer: (message: string) => steerRemote(message) } : {}),
  });

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
  const prompt = remote ? renderRemoteTask(packet) : `${renderSpawnPacket(packet)}\n\n## Task\n${args.task}`;
  const state = createLoopState(childMessages(definition, packet));
  const node: AgentNode = {
    run,
    depth,
    activeChildren: 0,
    meter: new UsageMeter(parent.meter, runModel.pricing),
    signal: controller.signal,
    state,
    emit: (data) => host.publish(dataEvent(scope.turnId, run, data)),
    get budgetStop() {
      return budgetStop;
    },
    holdWatchdogs: () => {
      const mine = watchdog.hold();
      const above = parent.holdWatchdogs?.();
      return () => {
        mine();
        above?.();
      };
    },
  };
  watchBudget(node.meter, definition.budget, "run", (why) => {
    if (controller.signal.aborted) return;
    budgetStop = why;
    stop(BUDGET_EXCEEDED);
  });
  host.publish({
    type: "subagent_started",
    ...runRef,
    callId: call.id,
    name: definition.name,
    task: args.task,
    prompt,
    startedAt,
    model: runModel.label,
    ...(ref ? { definition: ref } : {}),
    ...(spec.retryOf ? { retryOf: spec.retryOf } : {}),
    ...(definition.budget ? { budget: definition.budget } : {}),
  });

  const hooks = agentHooks(node, deps.now, started, scope.telemetry);
  // False while a model request streams: a run stopped then has no partial answer (that step's text is not complete).
  let responded = true;
  const { onStepStart, onChatUsage } = hooks;
  hooks.onStepStart = (step) => {
    responded = false;
    onStepStart?.(step);
  };
  hooks.onChatUsage = (usage) => {
    responded = true;
    onChatUsage?.(usage);
  };
  let endReason: EndReason = "completed";
  let error: string | undefined;
  let answer = "";
  // A remote agent takes steering as a follow-up message into its task, where it says it can.
  const steerRemote = (message: string): ControlResult => {
    if (!remote?.followUps)
      return {
        ok: false,
        message: `${definition.name} runs on a remote agent that takes no follow-up messages; kill it and ask again instead.`,
      };
    if (!followUp) return { ok: false, message: `${definition.name} has not started its remote task yet; try again in a moment.` };
    hooks.onSteer?.(node.meter.steps, message);
    followUp(message).catch((e: unknown) => deps.log?.warn("a follow-up to a remote agent failed", { runId, error: describeError(e) }));
    return { ok: true };
  };
  try {
    if (remote) {
      if (!deps.remoteAgents) throw new Error(`${definition.name} names a remote agent, and this server cannot reach remote agents.`);
      answer = await runRemoteAgent({
        transport: deps.remoteAgents,
        ref: remote,
        trusted: ref === undefined,
        agent: definition.name,
        ...(scope.ownerId ? { ownerId: scope.ownerId } : {}),
        text: prompt,
        signal: controller.signal,
        idleMs: deps.limits.remoteIdleMs ?? DEFAULT_REMOTE_IDLE_MS,
        out: {
          stepStart: (step) => hooks.onStepStart?.(step),
          text: (step, offset, text) => node.emit({ kind: "token", step, offset, text }),
          stepEnd: (steps) => hooks.onStepEnd?.(steps),
        },
        onTask: (send) => {
          followUp = send;
        },
        ...(scope.inputs ? { ask: remoteQuestion(scope.inputs, { parent, call, node, signal: controller.signal }) } : {}),
      });
    } else {
      const outcome = await runAgentLoop(
        {
          model: chatModel,
          systemModel,
          invoker: host.invokerFor(node, definition.allowedTools, definition.requireApproval),
          maxSteps: definition.maxSteps,
          maxToolCallsPerReply: deps.limits.maxToolCallsPerReply,
          contextTokens: deps.limits.contextTokens,
          objective: args.objective ?? args.task,
          signal: controller.signal,
          drainSteering: () => scope.registry.drain(runId),
          hasSteering: () => (scope.registry.get(runId)?.inbox.length ?? 0) > 0,
          log: deps.log,
          hooks,
        },
        state,
      );
      if (outcome.kind === "answered") answer = outcome.answer;
      else {
        endReason = "failed";
        error = `Reached its limit of ${definition.maxSteps} steps without a final answer.`;
      }
    }
  } catch (e) {
    if (controller.signal.reason === BUDGET_EXCEEDED && budgetStop) {
      endReason = "budget_exceeded";
      error = budgetStopText(budgetStop, inheritedStop);
      answer = responded ? lastStepText(state) : "";
    } else if (e instanceof AbortedError || controller.signal.aborted) {
      endReason = controller.signal.reason === "watchdog_timeout" ? "watchdog_timeout" : "killed";
      error =
        endReason === "watchdog_timeout"
          ? `Stopped by the watchdog after ${timeoutMs} ms.`
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

  // A remote run counts its steps as they end (the loop state is not its).
  if (!remote) node.meter.steps = state.steps;
  const ended = deps.now();
  const endedAt = new Date(ended).toISOString();
  const stats = node.meter.stats(ended - started);
  if (endReason === "completed") {
    host.publish({ type: "subagent_completed", ...runRef, response: answer, stats, endReason, endedAt });
  } else {
    host.publish({ type: "subagent_error", ...runRef, error: error ?? "Failed.", stats, endReason, endedAt });
  }

  // Condensation is the parent's work: its system usage is charged to the parent.
  const condensed = await condenseResult({
    text: answer,
    maxResultTokens: deps.limits.maxResultTokens,
    model: systemModel,
    signal: parent.signal,
  });
  parent.meter.addSystem(condensed.usage);
  scope.telemetry?.condensed(runId, { level: condensed.level, originalTokens: condensed.originalTokens, bodyTokens: condensed.bodyTokens });
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
  host.publish({
    type: "agent:complete",
    turnId: scope.turnId,
    callId: call.id,
    runId,
    parentRunId: run.parentRunId,
    ...toolOutputOf(clean),
  });
  return { content: clean, status: endReason === "completed" ? "success" : "error", runId, endReason };
}

/** The one field a remote agent's question is answered in: A2A asks in words, and is answered in words. */
const REMOTE_ANSWER_FORM: InputForm = {
  type: "object",
  properties: { answer: { type: "string", title: "Your answer", minLength: 1 } },
  required: ["answer"],
};

/**
 * How a remote agent's question (`input-required`) reaches its person: on the turn's
 * InputGate like a tool's question, asked by the call that spawned the run (so its card
 * shows on that run's panel, and the answer is routed like any other), with the watchdogs
 * above held while it waits. Resolves with the answer's text; undefined when declined,
 * expired or stopped.
 */
function remoteQuestion(
  gate: InputGate,
  ask: { parent: AgentNode; call: ChildSpec["call"]; node: AgentNode; signal: AbortSignal },
): (question: string) => Promise<string | undefined> {
  return async (question) => {
    const message = question.slice(0, MAX_INPUT_MESSAGE_CHARS);
    const answer = await gate.ask({
      emit: ask.parent.emit,
      runId: ask.parent.run?.runId ?? null,
      callId: ask.call.id,
      message,
      form: REMOTE_ANSWER_FORM,
      signal: ask.signal,
      ...(ask.node.holdWatchdogs ? { onWait: ask.node.holdWatchdogs } : {}),
    });
    const text = answer.action === "accept" ? answer.content?.answer : undefined;
    return typeof text === "string" && text.trim() ? text : undefined;
  };
}

/**
 * The text of the step a run stopped in: its partial answer. Only that last step's, like a
 * final answer: the text of the steps before it is the run's internals (the clean-context
 * rule), and a step that wrote nothing leaves the answer empty.
 */
function lastStepText(state: LoopState): string {
  if (state.steps === 0) return "";
  const last = state.messages.findLast((m) => m.role === "assistant");
  return last?.content ?? "";
}
