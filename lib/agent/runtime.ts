import type { AgentEvent, ChatTurn, Publish, TurnStats } from "@/lib/contracts";
import { buildSessionContext } from "@/lib/context/build-session-context";
import type { ChatModel } from "@/lib/model/types";
import type { Tool } from "@/lib/tools/types";
import { createLoopState, runAgentLoop, type LoopState } from "./agent-loop";
import type { SubagentDefinition } from "./definitions";
import { AbortedError, describeError } from "./model-step";
import { masterSystemPrompt } from "./prompts";
import { RunRegistry, type ControlResult } from "./run-registry";
import { SubagentExecutor, type AgentNode } from "./subagent-executor";
import { UsageMeter, type Pricing } from "./usage-meter";

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
  /** Workspace tools; the `subagent` tool is added by the runtime. */
  tools: Tool[];
  definitions: SubagentDefinition[];
  workspaceDir: string;
  limits: {
    maxSpawnDepth: number;
    maxChildrenPerAgent: number;
    maxResultTokens: number;
    subagentTimeoutMs: number;
    /** The master's step limit; subagents use their definition's `maxTurns`. */
    maxTurns: number;
    /** Context budget of every agent's requests; over it, older context is compacted. */
    contextTokens: number;
  };
  /** Model prices, for the cost figures in stats and result footers. */
  pricing?: Pricing;
  log?: { warn(msg: string, meta?: object): void };
  now?: () => number;
  newId?: () => string;
}

export interface TurnInput {
  sessionId: string;
  turnId: string;
  prompt: string;
  /** Earlier turns of the session, oldest first (not including this one). */
  history: ChatTurn[];
  publish: Publish;
}

export interface TurnResult {
  status: "completed" | "failed" | "cancelled";
  response: string;
  stats: TurnStats;
  error?: string;
}

export interface TurnHandle {
  done: Promise<TurnResult>;
  cancel(): void;
  steer(runId: string, message: string): ControlResult;
  kill(runId: string): ControlResult;
}

export interface AgentRuntime {
  startTurn(input: TurnInput): TurnHandle;
}

export function createAgentRuntime(deps: AgentRuntimeDeps): AgentRuntime {
  const now = deps.now ?? Date.now;
  const newId = deps.newId ?? (() => crypto.randomUUID());
  const systemModel = deps.systemModel ?? deps.model;
  return {
    startTurn(input) {
      const controller = new AbortController();
      const registry = new RunRegistry();
      const publish = safePublisher(input.publish, deps.log);
      const done = runTurn(input, controller.signal, registry, publish, { ...deps, systemModel, now, newId });
      return {
        done,
        cancel: () => {
          if (!controller.signal.aborted) controller.abort("cancelled");
        },
        steer: (runId, message) => registry.steer(runId, message),
        kill: (runId) => registry.kill(runId),
      };
    },
  };
}

type ResolvedDeps = AgentRuntimeDeps & { systemModel: ChatModel; now: () => number; newId: () => string };

async function runTurn(
  input: TurnInput,
  signal: AbortSignal,
  registry: RunRegistry,
  publish: Publish,
  deps: ResolvedDeps,
): Promise<TurnResult> {
  const started = deps.now();
  const meter = new UsageMeter(undefined, deps.pricing);
  const { turnId } = input;
  let state: LoopState | undefined;
  let result: Omit<TurnResult, "stats" | "response">;
  try {
    publish({ type: "turn:started", turnId, prompt: input.prompt, createdAt: new Date(started).toISOString() });
    state = createLoopState([
      { role: "system", content: masterSystemPrompt(deps.definitions, deps.workspaceDir) },
      ...buildSessionContext(input.history, deps.log),
      { role: "user", content: input.prompt },
    ]);
    const executor = new SubagentExecutor(deps, { turnId, publish, registry });
    const master: AgentNode = { runId: null, depth: 0, activeChildren: 0, meter, signal, state };
    const outcome = await runAgentLoop(
      {
        model: deps.model,
        systemModel: deps.systemModel,
        invoker: executor.invokerFor(master, "all"),
        maxTurns: deps.limits.maxTurns,
        contextTokens: deps.limits.contextTokens,
        signal,
        log: deps.log,
        hooks: {
          onText: (text, offset) => publish({ type: "turn:token", turnId, offset, text }),
          onToolCall: (c) =>
            publish({ type: "tool:call", turnId, callId: c.callId, name: c.name, parameters: c.parameters, textOffset: c.textOffset }),
          // The whole output travels to the server, which stores it and relays a preview.
          onToolResult: (c, fullText) =>
            publish({ type: "tool:result", turnId, callId: c.callId, response: fullText, responseSize: fullText.length, status: c.status }),
          onChatUsage: (usage) => meter.addChat(usage),
          onSystemUsage: (usage) => meter.addSystem(usage),
          onStepEnd: (steps) => {
            meter.steps = steps;
            publish({ type: "turn:usage", turnId, stats: meter.stats(deps.now() - started) });
          },
        },
      },
      state,
    );
    result =
      outcome === "answered"
        ? { status: "completed" }
        : { status: "failed", error: `The agent used all ${deps.limits.maxTurns} steps without reaching a final answer.` };
  } catch (error) {
    if (signal.aborted || error instanceof AbortedError) result = { status: "cancelled" };
    else result = { status: "failed", error: describeError(error) };
  }
  const response = state?.text ?? "";
  const stats = meter.stats(deps.now() - started);
  const final: TurnResult = { ...result, response, stats };
  publish({
    type: "turn:ended",
    turnId,
    status: final.status,
    response,
    stats,
    ...(final.error ? { error: final.error } : {}),
    endedAt: new Date(deps.now()).toISOString(),
  });
  return final;
}

/** A publisher that throws must not take the turn down with it (nor skip `turn:ended`). */
function safePublisher(publish: Publish, log: AgentRuntimeDeps["log"]): Publish {
  return (event: AgentEvent) => {
    try {
      publish(event);
    } catch (error) {
      log?.warn("publishing an agent event failed", { type: event.type, error: describeError(error) });
    }
  };
}
