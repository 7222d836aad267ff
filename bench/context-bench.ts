import type { ChatTurn, ToolCall } from "@/lib/contracts";
import { buildSessionContext } from "@/lib/context/build-session-context";
import { estimateMessagesTokens } from "@/lib/context/tokens";
import type { ChatMessage } from "@/lib/model/types";
import type { ChatStore } from "@/server/data/store";
import { median, nowMs, round } from "./stats";

/**
 * Benchmark 4: rebuilding the master's context from a stored session (the historical
 * path of the clean-context rule, docs/architecture.md) — how long `buildSessionContext`
 * takes on the turns `loadHistory` assembles, and how many tokens it sends compared with
 * a context without the clean-context filter, where each subagent's tool message would be
 * its full process as a JSON envelope
 * (`{ success, data: { prompt, thinking, response, toolCalls, stats } }`).
 */

export interface ContextResult {
  turns: number;
  messages: number;
  loadHistoryMs: number;
  buildMs: number;
  cleanTokens: number;
  naiveTokens: number;
  /** naive / clean. */
  ratio: number;
  /** No tool message of the clean context carries a subagent's internals. */
  clean: boolean;
}

export async function runContextBench(store: ChatStore, sessionId: string, reps: number): Promise<ContextResult> {
  const loads: number[] = [];
  let turns: ChatTurn[] = [];
  for (let i = 0; i < Math.max(1, Math.min(reps, 3)); i++) {
    const start = nowMs();
    turns = await store.loadHistory(sessionId);
    loads.push(nowMs() - start);
  }
  buildSessionContext(turns);
  const builds: number[] = [];
  let messages: ChatMessage[] = [];
  for (let i = 0; i < reps; i++) {
    const start = nowMs();
    messages = buildSessionContext(turns);
    builds.push(nowMs() - start);
  }
  const naive = withoutCleanContext(messages, turns);
  const cleanTokens = estimateMessagesTokens(messages);
  const naiveTokens = estimateMessagesTokens(naive);
  return {
    turns: turns.length,
    messages: messages.length,
    loadHistoryMs: round(median(loads), 1),
    buildMs: round(median(builds), 2),
    cleanTokens,
    naiveTokens,
    ratio: round(naiveTokens / cleanTokens, 1),
    clean: messages.every((m) => m.role !== "tool" || !/"toolCalls"|"thinking"|"steps"/.test(m.content)),
  };
}

/**
 * The context as it would be without the filter: the same messages, except that a
 * subagent call's tool message carries the subagent's whole process as JSON.
 */
export function withoutCleanContext(messages: readonly ChatMessage[], turns: readonly ChatTurn[]): ChatMessage[] {
  const spawns = new Map<string, ToolCall>();
  for (const turn of turns)
    for (const step of turn.steps) for (const call of step.toolCalls) if (call.subagent) spawns.set(call.callId, call);
  return messages.map((message) => {
    if (message.role !== "tool") return message;
    const process = spawns.get(message.toolCallId)?.subagent;
    if (!process) return message;
    return { ...message, content: JSON.stringify({ success: process.status === "success", data: process }) };
  });
}
