import type { AgentData, ToolStatus, Usage } from "@/lib/contracts";
import { cleanSubagentContent, type WarnLog } from "@/lib/context/clean-result";
import { COMPACT_SYSTEM_PROMPT, compactMessages, reinforceObjective } from "@/lib/context/compact";
import { estimateRequestTokens } from "@/lib/context/tokens";
import type { ChatMessage, ChatModel, ModelToolCall, ToolSpec } from "@/lib/model/types";
import { SUBAGENT_TOOL_NAME } from "./definitions";
import { describeError, runModelStep, throwIfAborted } from "./model-step";
import { toolErrorText } from "./tool-errors";

/**
 * The agent loop shared by the master and every subagent: stream the model, run the tool
 * calls it asks for (independent calls concurrently, a few at a time), feed the results back as role:"tool"
 * messages with the same ids, and stop on a final answer or after `maxSteps` requests.
 *
 * The loop owns no transport: it reports through hooks (`agentHooks`), which make the
 * agent's events of them, the master's and a subagent's alike.
 */

export interface ToolOutcome {
  /** What the calling model reads. For a subagent call: the clean narrative result. */
  content: string;
  /** `cancelled`: the run stopped before the call finished (the content still says so, for the model). */
  status: Exclude<ToolStatus, "running">;
}

export interface ToolInvoker {
  specs: ToolSpec[];
  /** Exclusive calls (non-parallelizable subagents) run one at a time after the others. */
  isExclusive(call: ModelToolCall): boolean;
  /** Never rejects with anything but a bug; refusals are error outcomes. */
  invoke(call: ModelToolCall, context: { messages: readonly ChatMessage[]; signal: AbortSignal }): Promise<ToolOutcome>;
  /**
   * Called once a step's calls have all returned, before the model reads them: waits for
   * retries of failed subagent calls started meanwhile and returns their outcomes by call
   * id, to be read instead (Retry). After it resolves, no retry can replace them any more.
   */
  settle?(calls: readonly ModelToolCall[]): Promise<Map<string, ToolOutcome>>;
}

/** What the loop reports, each tagged with the step (model request, from 0) it belongs to. */
export interface LoopHooks {
  /** Where the agent's streamed text (token, thinking) goes, as its payload, made by the loop itself. */
  emit?(data: AgentData): void;
  onToolCall?(step: number, call: ModelToolCall): void;
  /** `content` is exactly what the calling model reads. */
  onToolResult?(callId: string, content: string, status: ToolOutcome["status"]): void;
  onChatUsage?(usage: Usage): void;
  onSystemUsage?(usage: Usage): void;
  onStepEnd?(steps: number): void;
  /** Step `step` begins (before its steering, compaction and model request): the timeline's start of the step. */
  onStepStart?(step: number): void;
  /** A steering message joined the transcript, read first by step `step`. */
  onSteer?(step: number, message: string): void;
  /** The transcript outgrew the context budget and was compacted (see lib/context/compact.ts). */
  onCompact?(info: { method: string; beforeTokens: number; afterTokens: number }): void;
}

export interface LoopOptions {
  model: ChatModel;
  systemModel: ChatModel;
  invoker: ToolInvoker;
  maxSteps: number;
  /** Tool calls one reply may have run (MAX_TOOL_CALLS_PER_REPLY); default DEFAULT_MAX_TOOL_CALLS_PER_REPLY. */
  maxToolCallsPerReply?: number;
  contextTokens: number;
  /** Re-stated after every compaction (objective reinforcement), so a long run does not drift from its task. */
  objective?: string;
  signal: AbortSignal;
  /** Steering messages waiting for the next step boundary. */
  drainSteering?: () => string[];
  /** True while steering messages wait: an answer then is not final, they land as a follow-up turn. */
  hasSteering?: () => boolean;
  hooks: LoopHooks;
  log?: WarnLog;
}

/** Mutable so that a caller still has the transcript and step count when the loop throws. */
export interface LoopState {
  messages: ChatMessage[];
  steps: number;
}

/**
 * `answered`: a step ended without tool calls; `answer` is that step's text alone — the
 * agent's final answer, without the interim text of the steps before it.
 */
export type LoopOutcome = { kind: "answered"; answer: string } | { kind: "max_steps" };

export function createLoopState(messages: ChatMessage[]): LoopState {
  return { messages, steps: 0 };
}

export const STEER_TAG = "[Steering message]";

/**
 * Tool calls one reply may have run. Model output is untrusted: a reply of thousands of
 * calls would otherwise run them all, record each in the turn and resend each, with its
 * result, in every later request. The calls beyond are not run and not recorded, and the
 * transcript keeps only the first of them, whose error result tells the model how many
 * were left out, so it can ask again: what the next request carries is bounded by the
 * limit, not by the reply.
 */
export const DEFAULT_MAX_TOOL_CALLS_PER_REPLY = 200;

export function tooManyCallsText(asked: number, limit: number): string {
  return toolErrorText(
    "too_many_calls",
    `this reply asked for ${asked} tool calls; at most ${limit} run per reply. This call and the ${asked - limit - 1} after it were not run (they are left out of this conversation). Ask again for the rest.`,
  );
}

export async function runAgentLoop(options: LoopOptions, state: LoopState): Promise<LoopOutcome> {
  const { hooks, invoker, signal } = options;
  while (state.steps < options.maxSteps) {
    throwIfAborted(signal);
    hooks.onStepStart?.(state.steps);
    for (const steer of options.drainSteering?.() ?? []) {
      state.messages.push({ role: "user", content: `${STEER_TAG}\n${steer}` });
      hooks.onSteer?.(state.steps, steer);
    }
    await compactIfNeeded(options, state);

    const index = state.steps;
    const emit = hooks.emit;
    const limit = options.maxToolCallsPerReply ?? DEFAULT_MAX_TOOL_CALLS_PER_REPLY;
    let asked = 0;
    const step = await runModelStep(
      options.model,
      // One call past the limit is kept: it stands for the refused rest in the transcript.
      { messages: [...state.messages], tools: invoker.specs.length ? invoker.specs : undefined, signal, maxToolCalls: limit + 1 },
      {
        // Streamed text becomes the agent's payload here, in one call, and goes on as is.
        onText: emit && ((text, offset) => emit({ kind: "token", step: index, offset, text })),
        onThinking: emit && ((text, offset) => emit({ kind: "thinking", step: index, offset, text })),
        onToolCall: (call) => {
          if (asked++ < limit) hooks.onToolCall?.(index, call);
        },
      },
    );
    state.steps++;
    hooks.onChatUsage?.(step.usage);
    // One refused call stands for all of them (see DEFAULT_MAX_TOOL_CALLS_PER_REPLY).
    const calls = step.toolCalls;
    state.messages.push({ role: "assistant", content: step.text, ...(calls.length ? { toolCalls: calls } : {}) });
    if (calls.length === 0) {
      hooks.onStepEnd?.(state.steps);
      if (options.hasSteering?.()) continue;
      return { kind: "answered", answer: step.text };
    }
    const outcomes = await runCalls(calls.slice(0, limit), options, state);
    const askedFor = step.toolCallsAsked;
    if (askedFor > limit) options.log?.warn("tool calls beyond the reply's bound refused", { asked: askedFor, ran: limit });
    calls.forEach((call, i) => {
      const content = i < limit ? outcomes[i]! : tooManyCallsText(askedFor, limit);
      state.messages.push({ role: "tool", content, toolCallId: call.id, toolName: call.name });
    });
    hooks.onStepEnd?.(state.steps);
  }
  throwIfAborted(signal);
  return { kind: "max_steps" };
}

async function runCalls(calls: ModelToolCall[], options: LoopOptions, state: LoopState): Promise<string[]> {
  const contents: string[] = new Array(calls.length).fill("");
  const runOne = async (index: number) => {
    const call = calls[index]!;
    let outcome: ToolOutcome;
    try {
      // A call without a name can name no tool: the model reads why and may try again.
      outcome = call.name
        ? await options.invoker.invoke(call, { messages: state.messages, signal: options.signal })
        : { content: toolErrorText("unknown_tool", "This tool call names no tool. Call a tool by its name."), status: "error" };
    } catch (error) {
      outcome = { content: toolErrorText("tool_failed", `Tool "${call.name}" failed: ${describeError(error)}`), status: "error" };
    }
    // The clean-context rule, live path (docs/architecture.md): only a subagent's clean result may enter the context.
    const content = call.name === SUBAGENT_TOOL_NAME ? cleanSubagentContent(outcome.content, options.log) : outcome.content;
    contents[index] = content;
    options.hooks.onToolResult?.(call.id, content, outcome.status);
  };
  const indexes = calls.map((_, i) => i);
  const exclusive = indexes.filter((i) => options.invoker.isExclusive(calls[i]!));
  const parallel = indexes.filter((i) => !exclusive.includes(i));
  const spawns = parallel.filter((i) => calls[i]!.name === SUBAGENT_TOOL_NAME);
  const tools = parallel.filter((i) => calls[i]!.name !== SUBAGENT_TOOL_NAME);
  await Promise.all([...spawns.map(runOne), runInOrder(tools, MAX_CONCURRENT_TOOL_CALLS, runOne)]);
  for (const i of exclusive) await runOne(i);
  const replaced = (await options.invoker.settle?.(calls)) ?? new Map<string, ToolOutcome>();
  for (const [callId, outcome] of replaced) {
    const index = calls.findIndex((c) => c.id === callId);
    if (index < 0) continue;
    const content = cleanSubagentContent(outcome.content, options.log);
    contents[index] = content;
    options.hooks.onToolResult?.(callId, content, outcome.status);
  }
  return contents;
}

/**
 * Workspace tool calls one step runs at once; the rest start in call order as these finish.
 * A reply may ask for any number of calls (model output is untrusted) and each call holds
 * files and buffers while it runs, so the reply must not decide how many run together.
 * Subagent calls are not counted here: maxChildrenPerAgent bounds them.
 */
const MAX_CONCURRENT_TOOL_CALLS = 4;

/** Runs `run` over `indexes` in order, at most `limit` at a time. */
async function runInOrder(indexes: number[], limit: number, run: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < indexes.length) await run(indexes[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, indexes.length) }, lane));
}

async function compactIfNeeded(options: LoopOptions, state: LoopState): Promise<void> {
  const specs = options.invoker.specs;
  if (estimateRequestTokens(state.messages, specs) <= options.contextTokens) return;
  const result = await compactMessages(state.messages, {
    budgetTokens: options.contextTokens,
    tools: specs,
    summarize: async (transcript) => {
      const step = await runModelStep(options.systemModel, {
        messages: [
          { role: "system", content: COMPACT_SYSTEM_PROMPT },
          { role: "user", content: transcript },
        ],
        signal: options.signal,
        // A summary is text: tool calls in it are not run, so none are kept.
        maxToolCalls: 0,
      });
      options.hooks.onSystemUsage?.(step.usage);
      return step.text;
    },
  });
  if (result.method === "none") return;
  options.log?.warn("context compacted", { method: result.method, beforeTokens: result.beforeTokens, afterTokens: result.afterTokens });
  options.hooks.onCompact?.({ method: result.method, beforeTokens: result.beforeTokens, afterTokens: result.afterTokens });
  const next = options.objective ? reinforceObjective(result.messages, options.objective) : result.messages;
  state.messages.splice(0, state.messages.length, ...next);
}
