import type { ChatMessage, ToolSpec } from "@/lib/model/types";
import { estimateRequestTokens } from "./tokens";
import { contentText } from "@/lib/model/content";

/**
 * Keeps an agent's context under its token budget.
 *
 * The conversation is cut into groups that must stay whole for the provider to accept
 * them: a user message, or an assistant message together with the tool messages that
 * answer its calls. The leading system messages, the last user message (the current
 * prompt or task) and the most recent groups are protected; everything older is
 * compactable. First choice: one summary of the older part written by the system model.
 * If that is unavailable or fails: drop old tool outputs (ids stay, so the protocol holds),
 * then drop whole old groups, oldest first.
 */

export const COMPACT_SYSTEM_PROMPT =
  "You compact conversations. Summarize the earlier part of the conversation below so the assistant can continue without it: keep decisions, facts found, file paths, open questions and the user's requests. Answer with the summary only.";

export const SUMMARY_TAG = "[Conversation Summary]";
export const OBJECTIVE_TAG = "[Objective Reinforcement]";
export const DROPPED_TOOL_OUTPUT = "[Older tool output removed to fit the context budget.]";

export type CompactionMethod = "none" | "summary" | "drop_tool_outputs" | "drop_turns";

export interface CompactOptions {
  budgetTokens: number;
  tools?: readonly ToolSpec[];
  /** Most recent assistant/tool groups kept verbatim. */
  keepRecentGroups?: number;
  /** Writes a summary of the given transcript; null or a throw means "unavailable". */
  summarize?: (transcript: string) => Promise<string | null>;
}

export interface CompactResult {
  messages: ChatMessage[];
  method: CompactionMethod;
  beforeTokens: number;
  afterTokens: number;
}

type Group = { messages: ChatMessage[]; protected: boolean };

export async function compactMessages(messages: readonly ChatMessage[], options: CompactOptions): Promise<CompactResult> {
  const tools = options.tools ?? [];
  const size = (ms: readonly ChatMessage[]) => estimateRequestTokens(ms, tools);
  const beforeTokens = size(messages);
  if (beforeTokens <= options.budgetTokens) {
    return { messages: [...messages], method: "none", beforeTokens, afterTokens: beforeTokens };
  }
  const { head, groups } = splitGroups(messages, options.keepRecentGroups ?? 2);
  const old = groups.filter((g) => !g.protected);
  if (old.length === 0) return { messages: [...messages], method: "none", beforeTokens, afterTokens: beforeTokens };

  const summary = options.summarize ? await trySummarize(options.summarize, old) : null;
  if (summary) {
    const kept = groups.filter((g) => g.protected).flatMap((g) => g.messages);
    const next: ChatMessage[] = [...head, { role: "system", content: `${SUMMARY_TAG}\n${summary}` }, ...kept];
    const afterTokens = size(next);
    if (afterTokens <= options.budgetTokens) return { messages: next, method: "summary", beforeTokens, afterTokens };
  }

  let method: CompactionMethod = "drop_tool_outputs";
  const working = groups.map((g) => ({ ...g, messages: [...g.messages] }));
  const flat = () => [...head, ...working.flatMap((g) => g.messages)];
  for (const group of working) {
    if (group.protected) continue;
    group.messages = group.messages.map((m) => (m.role === "tool" ? { ...m, content: DROPPED_TOOL_OUTPUT } : m));
    if (size(flat()) <= options.budgetTokens) break;
  }
  for (let i = 0; i < working.length && size(flat()) > options.budgetTokens; i++) {
    if (working[i]!.protected) continue;
    working[i]!.messages = [];
    method = "drop_turns";
  }
  const next = flat();
  return { messages: next, method, beforeTokens, afterTokens: size(next) };
}

function splitGroups(messages: readonly ChatMessage[], keepRecent: number): { head: ChatMessage[]; groups: Group[] } {
  let start = 0;
  while (start < messages.length && messages[start]!.role === "system") start++;
  const head = messages.slice(0, start);
  const groups: Group[] = [];
  for (const m of messages.slice(start)) {
    const last = groups[groups.length - 1];
    if (m.role === "tool" && last) last.messages.push(m);
    else groups.push({ messages: [m], protected: false });
  }
  let lastUser = -1;
  groups.forEach((g, i) => {
    if (g.messages[0]!.role === "user") lastUser = i;
  });
  groups.forEach((g, i) => {
    g.protected = i === lastUser || i >= groups.length - keepRecent || g.messages[0]!.role === "system";
  });
  return { head, groups };
}

async function trySummarize(summarize: NonNullable<CompactOptions["summarize"]>, old: Group[]): Promise<string | null> {
  try {
    const text = await summarize(renderTranscript(old.flatMap((g) => g.messages)));
    return text && text.trim().length > 0 ? text.trim() : null;
  } catch {
    return null;
  }
}

/** Plain-text rendering of messages, for summaries and spawn packets. */
export function renderTranscript(messages: readonly ChatMessage[], maxCharsPerMessage = 4_000): string {
  return messages
    .map((m) => {
      const text = contentText(m.content);
      const body = text.length > maxCharsPerMessage ? `${text.slice(0, maxCharsPerMessage)} […]` : text;
      if (m.role === "tool") return `tool ${m.toolName} result: ${body}`;
      if (m.role === "assistant" && m.toolCalls?.length) {
        const calls = m.toolCalls.map((c) => `${c.name}(${c.arguments})`).join(", ");
        return `assistant: ${body}${body ? " " : ""}[called ${calls}]`;
      }
      return `${m.role}: ${body}`;
    })
    .join("\n");
}

/**
 * Objective reinforcement, so a run does not drift from its task once its history is
 * summarised: after a compaction the objective is re-stated right after the summary (or
 * after the system messages), replacing any earlier reinforcement.
 */
export function reinforceObjective(messages: readonly ChatMessage[], objective: string): ChatMessage[] {
  const rest = messages.filter((m) => !(m.role === "user" && contentText(m.content).startsWith(OBJECTIVE_TAG)));
  let at = 0;
  while (at < rest.length && rest[at]!.role === "system") at++;
  const note: ChatMessage = {
    role: "user",
    content: `${OBJECTIVE_TAG}\nYour context was compacted. Keep working towards your original objective:\n${objective}`,
  };
  return [...rest.slice(0, at), note, ...rest.slice(at)];
}
