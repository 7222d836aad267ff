import type { ChatTurn } from "@/lib/contracts";
import { indexRuns } from "./doc-path";
import { toolNodeFromCall } from "./panel";
import type { MessageDoc, Segment } from "./types";

/**
 * Rebuilds the message tree from the stored turn: the replay path. The master's text is
 * cut at each tool call's `textOffset` (calls at the same offset keep their stored order),
 * and panels come from `toolCall.subagent`, recursively. Built to equal, node for node,
 * the doc that the live transforms produce from the same events (DESIGN invariant 3).
 */
export function docFromTurn(turn: ChatTurn): MessageDoc {
  const text = turn.response;
  const calls = turn.toolCalls
    .map((call, order) => ({ call, order, at: Math.min(call.textOffset, text.length) }))
    .sort((a, b) => a.at - b.at || a.order - b.order);
  const segments: Segment[] = [];
  let position = 0;
  for (const { call, at } of calls) {
    if (at > position) segments.push({ kind: "text", text: text.slice(position, at) });
    position = Math.max(position, at);
    segments.push({ kind: "tool", call: toolNodeFromCall(call) });
  }
  if (text.length > position) segments.push({ kind: "text", text: text.slice(position) });
  return { turnId: turn.turnId, segments, textLength: text.length, runs: indexRuns(segments) };
}
