import type { EndReason, TurnStats } from "@/lib/contracts";

/**
 * The OpenTelemetry GenAI semantic conventions as this app maps its turns onto them: span
 * names and attributes, pure functions of what the runtime knows. No OpenTelemetry import:
 * server/telemetry/ turns these into spans, and tests read them without an SDK.
 *
 * Attribute values are strings, numbers, booleans or arrays of strings, as span attributes allow.
 */

export type AttributeValue = string | number | boolean | string[];
export type Attributes = Record<string, AttributeValue>;

export const GEN_AI = {
  operation: "gen_ai.operation.name",
  provider: "gen_ai.provider.name",
  conversationId: "gen_ai.conversation.id",
  agentName: "gen_ai.agent.name",
  agentId: "gen_ai.agent.id",
  agentDescription: "gen_ai.agent.description",
  agentVersion: "gen_ai.agent.version",
  requestModel: "gen_ai.request.model",
  responseModel: "gen_ai.response.model",
  finishReasons: "gen_ai.response.finish_reasons",
  inputTokens: "gen_ai.usage.input_tokens",
  outputTokens: "gen_ai.usage.output_tokens",
  toolName: "gen_ai.tool.name",
  toolCallId: "gen_ai.tool.call.id",
  toolType: "gen_ai.tool.type",
  toolArguments: "gen_ai.tool.call.arguments",
  toolResult: "gen_ai.tool.call.result",
  inputMessages: "gen_ai.input.messages",
  outputMessages: "gen_ai.output.messages",
  systemInstructions: "gen_ai.system_instructions",
  errorType: "error.type",
  serverAddress: "server.address",
} as const;

/** This app's own attributes, beside the conventions' (the conventions have no word for these). */
export const DELEGATE = {
  turnId: "delegate.turn.id",
  runId: "delegate.run.id",
  parentRunId: "delegate.run.parent_id",
  depth: "delegate.run.depth",
  task: "delegate.run.task",
  endReason: "delegate.run.end_reason",
  purpose: "delegate.model.purpose",
  steps: "delegate.run.steps",
  cost: "delegate.run.cost_usd",
  chatInputTokens: "delegate.usage.chat.input_tokens",
  chatOutputTokens: "delegate.usage.chat.output_tokens",
  systemInputTokens: "delegate.usage.system.input_tokens",
  systemOutputTokens: "delegate.usage.system.output_tokens",
  toolStatus: "delegate.tool.status",
  retryOf: "delegate.run.retry_of",
} as const;

/** The master's name in traces: the conventions want a name on every `invoke_agent`. */
export const MASTER_AGENT_NAME = "master";

/** The tool that spawns a subagent (lib/agent/definitions.ts names it; repeated here so this module stays a leaf). */
const SUBAGENT_TOOL = "subagent";

export function invokeAgentSpanName(agentName: string): string {
  return `invoke_agent ${agentName}`;
}

export function chatSpanName(model: string): string {
  return `chat ${model}`;
}

export function executeToolSpanName(tool: string): string {
  return `execute_tool ${tool}`;
}

/** The `invoke_agent` span's attributes as it opens. `runId` null: the master (its id is the turn's). */
export function agentAttributes(agent: {
  sessionId: string;
  turnId: string;
  name: string;
  runId: string | null;
  parentRunId?: string | null;
  depth: number;
  task?: string;
  version?: number;
  retryOf?: string;
}): Attributes {
  const attributes: Attributes = {
    [GEN_AI.operation]: "invoke_agent",
    [GEN_AI.agentName]: agent.name,
    [GEN_AI.agentId]: agent.runId ?? agent.turnId,
    [GEN_AI.conversationId]: agent.sessionId,
    [DELEGATE.turnId]: agent.turnId,
    [DELEGATE.depth]: agent.depth,
  };
  if (agent.runId) attributes[DELEGATE.runId] = agent.runId;
  if (agent.parentRunId) attributes[DELEGATE.parentRunId] = agent.parentRunId;
  if (agent.version !== undefined) attributes[GEN_AI.agentVersion] = String(agent.version);
  if (agent.retryOf) attributes[DELEGATE.retryOf] = agent.retryOf;
  return attributes;
}

/**
 * A run's figures as the turn stores them (its UsageMeter's: its own usage and its
 * descendants'). `gen_ai.usage.*` is chat and system together, what the run cost in tokens;
 * the split is kept beside it.
 */
export function statsAttributes(stats: TurnStats): Attributes {
  return {
    [GEN_AI.inputTokens]: stats.chat.inputTokens + stats.system.inputTokens,
    [GEN_AI.outputTokens]: stats.chat.outputTokens + stats.system.outputTokens,
    [DELEGATE.chatInputTokens]: stats.chat.inputTokens,
    [DELEGATE.chatOutputTokens]: stats.chat.outputTokens,
    [DELEGATE.systemInputTokens]: stats.system.inputTokens,
    [DELEGATE.systemOutputTokens]: stats.system.outputTokens,
    [DELEGATE.steps]: stats.steps,
    [DELEGATE.cost]: stats.cost,
  };
}

/**
 * Which end reasons mark a span as failed, and with which `error.type`. A kill is a
 * person's choice and a completed run did its work: neither is an error.
 */
export function endReasonErrorType(endReason: EndReason): string | undefined {
  return endReason === "completed" || endReason === "killed" ? undefined : endReason;
}

/**
 * Who answers a model: `openai` for the OpenAI-compatible adapter (the wire it speaks,
 * whatever gateway is behind it), this app's own name for the offline demo model; and the
 * host named in the model's label ("gpt-4o via api.example.com").
 */
export function chatAttributes(model: { id: string; label: string; isDemo: boolean }, purpose: "chat" | "system"): Attributes {
  const attributes: Attributes = {
    [GEN_AI.operation]: "chat",
    [GEN_AI.provider]: model.isDemo ? "delegate.demo" : "openai",
    [GEN_AI.requestModel]: model.id,
    [DELEGATE.purpose]: purpose,
  };
  const via = / via (\S+)$/.exec(model.label);
  if (via) attributes[GEN_AI.serverAddress] = via[1]!;
  return attributes;
}

/** What a finished model request adds to its `chat` span: the provider's usage (when it reported any) and the finish reason. */
export function chatEndAttributes(end: {
  usage?: { inputTokens: number; outputTokens: number };
  finishReason?: "stop" | "tool_calls" | "length" | "other";
  responseModel?: string;
}): Attributes {
  const attributes: Attributes = {};
  if (end.responseModel) attributes[GEN_AI.responseModel] = end.responseModel;
  if (end.usage) {
    attributes[GEN_AI.inputTokens] = end.usage.inputTokens;
    attributes[GEN_AI.outputTokens] = end.usage.outputTokens;
  }
  if (end.finishReason) attributes[GEN_AI.finishReasons] = [end.finishReason];
  return attributes;
}

/**
 * A tool call's span attributes. The conventions' tool types: `extension` for a tool run
 * by something outside the agent (an MCP server's, which lib/mcp names "server.tool"; the
 * app's own tool names have no dot), `function` for the app's own tools and for `subagent`
 * (run in this process by the agent's host).
 */
export function toolAttributes(call: { id: string; name: string }): Attributes {
  return {
    [GEN_AI.operation]: "execute_tool",
    [GEN_AI.toolName]: call.name,
    [GEN_AI.toolCallId]: call.id,
    [GEN_AI.toolType]: call.name.includes(".") ? "extension" : "function",
  };
}

export function isSubagentCall(name: string): boolean {
  return name === SUBAGENT_TOOL;
}

/**
 * Message content as the conventions carry it (`gen_ai.input.messages` and the rest: JSON
 * text of role and parts). Only ever built when the operator opted in
 * (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true): prompts and tool results may
 * hold anything a person or a file said.
 */
export function textMessages(role: string, text: string, finishReason?: string): string {
  return JSON.stringify([{ role, parts: [{ type: "text", content: text }], ...(finishReason ? { finish_reason: finishReason } : {}) }]);
}

/** Reads the content switch the way the GenAI instrumentations do: only "true" (any case) turns it on. */
export function captureContentFrom(value: string | undefined): boolean {
  return value?.trim().toLowerCase() === "true";
}

/** Span event names for what happens within a span without taking time of its own. */
export const SPAN_EVENTS = {
  approvalRequested: "delegate.approval.requested",
  approvalDecided: "delegate.approval.decided",
  steerReceived: "delegate.steer.received",
  steerInjected: "delegate.steer.injected",
  decisionReceived: "delegate.approval.decision_received",
  answerReceived: "delegate.input.answer_received",
  killRequested: "delegate.kill.requested",
  cancelRequested: "delegate.cancel.requested",
  retryRequested: "delegate.retry.requested",
  retried: "delegate.retry.started",
  compacted: "delegate.context.compacted",
  condensed: "delegate.result.condensed",
} as const;
