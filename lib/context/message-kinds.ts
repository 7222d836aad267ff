import type { ModelMessage } from "@/lib/contracts";
import { STEER_TAG } from "@/lib/agent/agent-loop";
import { SUBAGENT_TOOL_NAME } from "@/lib/agent/definitions";
import { DROPPED_TOOL_OUTPUT, OBJECTIVE_TAG, SUMMARY_TAG } from "./compact";
import { estimateMessageTokens } from "./tokens";

/**
 * What each message of a model request is, for the context inspector: the parts a person
 * auditing a call asks about (subagent results, compaction summaries, objective
 * reinforcement, steering) told apart from ordinary prompts, answers and tool output.
 * Pure: the same tags the runtime writes are read back.
 */
export type MessageKind =
  | "system"
  | "summary"
  | "prompt"
  | "steering"
  | "objective"
  | "task"
  | "answer"
  | "tool_calls"
  | "tool_result"
  | "subagent_result"
  | "dropped_output";

export const MESSAGE_KIND_LABELS: Record<MessageKind, string> = {
  system: "System prompt",
  summary: "Compaction summary",
  prompt: "Prompt",
  steering: "Steering",
  objective: "Objective reinforcement",
  task: "Task",
  answer: "Answer",
  tool_calls: "Tool calls",
  tool_result: "Tool result",
  subagent_result: "Subagent result",
  dropped_output: "Removed tool output",
};

export interface MessageEntry {
  index: number;
  role: ModelMessage["role"];
  kind: MessageKind;
  /** Estimated tokens (the same estimator the runtime budgets with). */
  tokens: number;
}

/** `forSubagent`: the request is a subagent's, whose first user message is its task. */
export function classifyMessages(messages: readonly ModelMessage[], forSubagent: boolean): MessageEntry[] {
  let firstUser = true;
  return messages.map((message, index) => {
    const kind = kindOf(message, forSubagent && firstUser);
    if (message.role === "user" && kind !== "objective" && kind !== "steering") firstUser = false;
    return { index, role: message.role, kind, tokens: tokensOf(message) };
  });
}

function kindOf(message: ModelMessage, firstSubagentUser: boolean): MessageKind {
  switch (message.role) {
    case "system":
      return message.content.startsWith(SUMMARY_TAG) ? "summary" : "system";
    case "user":
      if (message.content.startsWith(STEER_TAG)) return "steering";
      if (message.content.startsWith(OBJECTIVE_TAG)) return "objective";
      return firstSubagentUser ? "task" : "prompt";
    case "assistant":
      return message.toolCalls?.length ? "tool_calls" : "answer";
    case "tool":
      if (message.content === DROPPED_TOOL_OUTPUT) return "dropped_output";
      return message.toolName === SUBAGENT_TOOL_NAME ? "subagent_result" : "tool_result";
  }
}

function tokensOf(message: ModelMessage): number {
  if (message.role === "assistant")
    return estimateMessageTokens({ role: "assistant", content: message.content, toolCalls: message.toolCalls });
  if (message.role === "tool")
    return estimateMessageTokens({
      role: "tool",
      content: message.content,
      toolCallId: message.toolCallId ?? "",
      toolName: message.toolName ?? "",
    });
  return estimateMessageTokens({ role: message.role, content: message.content });
}

/** Tokens per kind over a request, largest first: where the context went. */
export function tokensByKind(entries: readonly MessageEntry[]): { kind: MessageKind; tokens: number; count: number }[] {
  const totals = new Map<MessageKind, { tokens: number; count: number }>();
  for (const e of entries) {
    const t = totals.get(e.kind) ?? { tokens: 0, count: 0 };
    t.tokens += e.tokens;
    t.count++;
    totals.set(e.kind, t);
  }
  return [...totals].map(([kind, t]) => ({ kind, ...t })).sort((a, b) => b.tokens - a.tokens);
}
