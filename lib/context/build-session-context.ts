import type { ChatTurn, Step, ToolCall } from "@/lib/contracts";
import type { ChatMessage, ModelToolCall } from "@/lib/model/types";
import { UNREADABLE_RESULT, parseEnvelope, type WarnLog } from "./clean-result";
import { promptWithAttachments } from "@/lib/attachments/prompt-note";

/**
 * Rebuilds the master's context from stored turns (the historical path of the
 * clean-context rule, docs/architecture.md): user → assistant (its step's text and tool
 * calls) → tool messages carrying the same ids → … Each stored step is one model request, so the rebuilt messages are the ones the
 * live loop sent: same text, same calls, same ids, same order.
 */
export function buildSessionContext(turns: readonly ChatTurn[], log?: WarnLog): ChatMessage[] {
  const messages: ChatMessage[] = [];
  for (const turn of turns) {
    if (turn.status === "running") continue;
    // An earlier prompt's images are named, never sent again: each later request would pay their tokens anew.
    messages.push({ role: "user", content: promptWithAttachments(turn.prompt, turn.attachments ?? [], "earlier") });
    messages.push(...replayTurn(turn, log));
  }
  return messages;
}

function replayTurn(turn: ChatTurn, log?: WarnLog): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (const stored of turn.steps) {
    const step = withoutInStepRetries(stored);
    if (step.toolCalls.length === 0) {
      if (step.text) out.push({ role: "assistant", content: step.text });
      continue;
    }
    const toolCalls: ModelToolCall[] = step.toolCalls.map((c) => ({ id: c.callId, name: c.name, arguments: c.parameters }));
    out.push({ role: "assistant", content: step.text, toolCalls });
    for (const call of step.toolCalls) {
      out.push({ role: "tool", content: storedToolContent(call, log), toolCallId: call.callId, toolName: call.name });
    }
  }
  const last = out[out.length - 1];
  if (!last || last.role !== "assistant" || last.toolCalls) {
    // Keeps user/assistant alternation when a turn ended without an answer.
    const how = turn.status === "completed" ? "ended empty" : `was ${turn.status}`;
    out.push({ role: "assistant", content: `[No answer: this turn ${how}${turn.error ? ` (${turn.error})` : ""}.]` });
  }
  return out;
}

/**
 * A retry started while its parent's step still ran sits in that step as a call of its
 * own (for the audit), but the parent's model never made it: it read the retry's result
 * under the original call's id. Such a call retries a run spawned in the same step.
 */
function withoutInStepRetries(step: Step): Step {
  const spawned = new Set(step.toolCalls.map((c) => c.subagent?.runId).filter(Boolean));
  const toolCalls = step.toolCalls.filter((c) => !(c.subagent?.retryOf && spawned.has(c.subagent.retryOf)));
  return toolCalls.length === step.toolCalls.length ? step : { ...step, toolCalls };
}

/**
 * The content a replayed tool message carries: what the calling model saw live.
 *
 * Non-subagent tools: the stored response, unaltered.
 *
 * Subagent calls — our choice, documented because the obvious one is wrong: preferring
 * `toolCall.subagent.response` would be natural if `toolCall.response` could be a raw JSON
 * envelope. Here `toolCall.response` is the clean narrative-cast result the
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
