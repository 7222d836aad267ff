import type { ChatMessage, ToolSpec } from "@/lib/model/types";
import { IMAGE_TOKENS } from "@/lib/model/content";

/**
 * A deliberately simple token estimator (~4 characters per token plus a small overhead
 * per message), used for every model request: budgeting the master's context, deciding
 * when to condense a subagent's result, and reporting usage when a provider does not.
 * It only has to be consistent and roughly right, never exact, so no tokenizer is pulled in.
 */
export const CHARS_PER_TOKEN = 4;
const MESSAGE_OVERHEAD = 4;
const REQUEST_OVERHEAD = 3;

export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

export function estimateMessageTokens(message: ChatMessage): number {
  let tokens = MESSAGE_OVERHEAD;
  if (typeof message.content === "string") tokens += estimateTokens(message.content);
  else for (const part of message.content) tokens += part.type === "text" ? estimateTokens(part.text) : IMAGE_TOKENS;
  if (message.role === "assistant") {
    for (const call of message.toolCalls ?? []) {
      tokens += MESSAGE_OVERHEAD + estimateTokens(call.name) + estimateTokens(call.arguments);
    }
  }
  if (message.role === "tool") tokens += estimateTokens(message.toolName);
  return tokens;
}

export function estimateMessagesTokens(messages: readonly ChatMessage[]): number {
  return messages.reduce((sum, m) => sum + estimateMessageTokens(m), 0);
}

/** Tokens of a whole request: messages plus the tool schemas the provider also bills. */
export function estimateRequestTokens(messages: readonly ChatMessage[], tools: readonly ToolSpec[] = []): number {
  const toolTokens = tools.reduce((sum, t) => sum + estimateTokens(JSON.stringify(t)), 0);
  return REQUEST_OVERHEAD + estimateMessagesTokens(messages) + toolTokens;
}
