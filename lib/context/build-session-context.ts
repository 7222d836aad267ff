import type { ChatTurn, ToolCall } from "@/lib/contracts";
import type { ChatMessage, ModelToolCall } from "@/lib/model/types";
import { UNREADABLE_RESULT, parseEnvelope, type WarnLog } from "./clean-result";

/**
 * Rebuilds the master's context from stored turns (seed 000, "historical context"):
 * user → assistant (with its tool calls) → tool messages carrying the same ids → …
 *
 * A turn is stored flat (its full text plus tool calls stamped with `textOffset`), so the
 * steps are recovered by cutting the text at each distinct offset: calls made at the same
 * offset form one assistant message, the text before them is its content, and the text
 * after the last call is the final answer. Ids and order are kept exactly.
 */
export function buildSessionContext(turns: readonly ChatTurn[], log?: WarnLog): ChatMessage[] {
  const messages: ChatMessage[] = [];
  for (const turn of turns) {
    if (turn.status === "running") continue;
    messages.push({ role: "user", content: turn.prompt });
    messages.push(...replayTurn(turn, log));
  }
  return messages;
}

function replayTurn(turn: ChatTurn, log?: WarnLog): ChatMessage[] {
  const out: ChatMessage[] = [];
  const calls = [...turn.toolCalls].sort((a, b) => a.textOffset - b.textOffset);
  let cursor = 0;
  let i = 0;
  while (i < calls.length) {
    const offset = Math.min(calls[i]!.textOffset, turn.response.length);
    const step: ToolCall[] = [];
    while (i < calls.length && Math.min(calls[i]!.textOffset, turn.response.length) === offset) step.push(calls[i++]!);
    const toolCalls: ModelToolCall[] = step.map((c) => ({ id: c.callId, name: c.name, arguments: c.parameters }));
    out.push({ role: "assistant", content: turn.response.slice(cursor, Math.max(cursor, offset)), toolCalls });
    for (const call of step) {
      out.push({ role: "tool", content: storedToolContent(call, log), toolCallId: call.callId, toolName: call.name });
    }
    cursor = Math.max(cursor, offset);
  }
  const finalText = turn.response.slice(cursor);
  if (finalText.length > 0) out.push({ role: "assistant", content: finalText });
  else if (calls.length === 0 || turn.status !== "completed") {
    // Keeps user/assistant alternation when a turn ended without an answer.
    out.push({ role: "assistant", content: `[No answer: this turn ${turn.status === "completed" ? "ended empty" : `was ${turn.status}`}${turn.error ? ` (${turn.error})` : ""}.]` });
  }
  return out;
}

/**
 * The content a replayed tool message carries: what the calling model saw live.
 *
 * Non-subagent tools: the stored response, unaltered.
 *
 * Subagent calls — our choice, documented because it differs from the seed's letter:
 * the seed prefers `toolCall.subagent.response` because its `toolCall.response` could be
 * the pre-fix JSON envelope. Here `toolCall.response` is the clean narrative-cast result the
 * parent model actually read (condensed, labelled, with status), while `subagent.response`
 * is the subagent's raw, uncondensed final answer — possibly far larger. Replaying the stored
 * clean result keeps live and rebuilt contexts identical, so we:
 *  1. use `response` when it is clean text;
 *  2. if `response` is a JSON envelope, use its `data.response`;
 *  3. if `response` is an envelope that cannot be parsed (e.g. cut to a preview), or is
 *     empty, use `subagent.response` when present (old records have no `subagent`);
 *  4. otherwise a fixed notice, never the raw envelope.
 */
export function storedToolContent(call: ToolCall, log?: WarnLog): string {
  if (call.name !== "subagent") return storedPlainContent(call);
  const parsed = parseEnvelope(call.response);
  if (parsed.kind === "envelope") return parsed.response;
  if ((parsed.kind === "plain" || parsed.kind === "unparsable") && call.response.length > 0) return call.response;
  if (parsed.kind === "broken") {
    log?.warn("stored subagent result is an unreadable envelope", { callId: call.callId, resultLength: call.response.length });
  }
  if (call.subagent?.response) return call.subagent.response;
  return parsed.kind === "broken" ? UNREADABLE_RESULT : "[Subagent returned no result.]";
}

function storedPlainContent(call: ToolCall): string {
  if (call.status === "running") return "[No result: the call did not finish.]";
  return call.response;
}
