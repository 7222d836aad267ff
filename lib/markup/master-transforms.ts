import type { AgentEventOf } from "@/lib/contracts";
import { indexRuns, masterToolIndex } from "./doc-path";
import { tailAtOffset } from "./text-offset";
import type { MessageDoc, Segment, ToolNode } from "./types";

/**
 * Master-level transforms: the answer's text and the master's own tool calls, ordered as
 * they happened. Text lives in segments between tool calls; a token appends to the last
 * text segment (a new string built by concatenation, never by re-scanning), and the
 * segment array is copied — its length counts tool calls, not characters.
 */

/** Why: streams the master's answer by offset, so duplicates and overlaps append nothing twice. */
export function applyTurnToken(doc: MessageDoc, event: AgentEventOf<"turn:token">): MessageDoc {
  const tail = tailAtOffset(doc.textLength, event.offset, event.text);
  if (tail === "") return doc;
  const segments = doc.segments.slice();
  const last = segments[segments.length - 1];
  if (last?.kind === "text") segments[segments.length - 1] = { kind: "text", text: last.text + tail };
  else segments.push({ kind: "text", text: tail });
  return { ...doc, segments, textLength: doc.textLength + tail.length };
}

/**
 * Why: a tool call sits where the master's text stood when it was made (`textOffset`), the
 * same place `docFromTurn` puts it; repeated, it updates the existing node by callId.
 */
export function applyToolCall(doc: MessageDoc, event: AgentEventOf<"tool:call">): MessageDoc {
  const { callId, name, parameters, textOffset } = event;
  const existing = masterToolIndex(doc, callId);
  if (existing >= 0) {
    const call = (doc.segments[existing] as Extract<Segment, { kind: "tool" }>).call;
    if (call.name === name && call.parameters === parameters) return doc;
    const segments = doc.segments.slice();
    segments[existing] = { kind: "tool", call: { ...call, name, parameters } };
    return { ...doc, segments };
  }
  const node: Segment = {
    kind: "tool",
    call: { callId, name, parameters, response: "", responseSize: 0, status: "running" },
  };
  if (textOffset >= doc.textLength) return { ...doc, segments: [...doc.segments, node] };
  // Out-of-order call (made before text the doc already holds): insert at its offset,
  // splitting a text segment if needed. Rare, so rebuilding the index here is fine.
  const segments = insertAtOffset(doc.segments, textOffset, node);
  return { ...doc, segments, runs: indexRuns(segments) };
}

/** Why: the master's tool result (preview, full size, status) lands on its node by callId. */
export function applyToolResult(doc: MessageDoc, event: AgentEventOf<"tool:result">): MessageDoc {
  const index = masterToolIndex(doc, event.callId);
  if (index < 0) return doc;
  const call = (doc.segments[index] as Extract<Segment, { kind: "tool" }>).call;
  const { response, responseSize, status } = event;
  if (call.response === response && call.responseSize === responseSize && call.status === status) return doc;
  const segments = doc.segments.slice();
  const next: ToolNode = { ...call, response, responseSize, status };
  segments[index] = { kind: "tool", call: next };
  return { ...doc, segments };
}

/** Inserts `node` after all text before `offset` and after earlier calls at `offset`. */
function insertAtOffset(segments: readonly Segment[], offset: number, node: Segment): Segment[] {
  let position = 0;
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    if (segment.kind !== "text") continue;
    const end = position + segment.text.length;
    if (offset <= position) return [...segments.slice(0, i), node, ...segments.slice(i)];
    if (offset < end) {
      const cut = offset - position;
      const before: Segment = { kind: "text", text: segment.text.slice(0, cut) };
      const after: Segment = { kind: "text", text: segment.text.slice(cut) };
      return [...segments.slice(0, i), before, node, after, ...segments.slice(i + 1)];
    }
    position = end;
  }
  return [...segments, node];
}
