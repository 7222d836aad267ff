import type { AgentEvent, AgentEventOf, SubagentDataPayload } from "@/lib/contracts";
import { deepEqual, mapShared } from "./deep-equal";
import { callPath, indexRuns, toolAt, updatePanel, updateToolAt } from "./doc-path";
import { applyToolCall, applyToolResult, applyTurnToken } from "./master-transforms";
import { newPanel, panelFromProcess } from "./panel";
import { sweepOutcome, sweepTool } from "./sweep";
import { appendAtOffset } from "./text-offset";
import type { MessageDoc, PanelNode, Segment, ToolNode } from "./types";

export { applyToolCall, applyToolResult, applyTurnToken } from "./master-transforms";

/**
 * Pure, idempotent `(doc, event) → doc` transforms (seed 001), shared by the live stream,
 * the reconnect replay and the server. Each copies only the nodes on the path to the
 * change and returns the very same doc when the event changes nothing, so a duplicate or
 * replayed event is free and React can skip re-rendering untouched panels.
 *
 * Events for a run whose panel is unknown are ignored: a replay always starts from a
 * consistent snapshot, so an unknown run means the event belongs to history the doc was
 * built without, and the resync that follows brings it in.
 */

/** A `subagent_data` event narrowed to one payload kind. */
export type SubagentData<K extends SubagentDataPayload["kind"]> = Omit<AgentEventOf<"subagent_data">, "data"> & {
  data: Extract<SubagentDataPayload, { kind: K }>;
};

/** Why: opens the panel inside the tool call that spawned it; a second start changes nothing. */
export function applySubagentStarted(doc: MessageDoc, event: AgentEventOf<"subagent_started">): MessageDoc {
  if (Object.hasOwn(doc.runs, event.runId)) return doc;
  const path = callPath(doc, event.parentRunId, event.callId);
  if (!path || toolAt(doc, path)!.subagent) return doc;
  const next = updateToolAt(doc, path, (tool) => ({ ...tool, subagent: newPanel(event) }));
  return { ...next, runs: { ...doc.runs, [event.runId]: [...path] } };
}

/**
 * Why: a subagent's tool call appears in its panel as soon as it starts (audit while it
 * runs); repeated or replayed, it updates the same node by callId instead of adding one.
 */
export function applySubagentNestedToolCall(doc: MessageDoc, event: SubagentData<"tool_call">): MessageDoc {
  const { callId, name, parameters } = event.data;
  return updatePanel(doc, event.runId, (panel) => {
    const index = panel.toolCalls.findIndex((c) => c.callId === callId);
    const existing = panel.toolCalls[index];
    if (existing) {
      if (existing.name === name && existing.parameters === parameters) return panel;
      return withTool(panel, index, { ...existing, name, parameters });
    }
    const node: ToolNode = { callId, name, parameters, response: "", responseSize: 0, status: "running" };
    return { ...panel, toolCalls: [...panel.toolCalls, node] };
  });
}

/** Why: the nested call's result (preview + full size + status) lands on its own node. */
export function applySubagentNestedToolResult(doc: MessageDoc, event: SubagentData<"tool_result">): MessageDoc {
  const { callId, response, responseSize, status } = event.data;
  return updatePanel(doc, event.runId, (panel) => {
    const index = panel.toolCalls.findIndex((c) => c.callId === callId);
    const existing = panel.toolCalls[index];
    if (!existing) return panel;
    if (existing.response === response && existing.responseSize === responseSize && existing.status === status) {
      return panel;
    }
    return withTool(panel, index, { ...existing, response, responseSize, status });
  });
}

/**
 * Why: streams the subagent's answer into `responseText` by offset, so duplicates and
 * reconnect overlaps append nothing twice. Once the run has ended its final text rules.
 */
export function applySubagentResponseToken(doc: MessageDoc, event: SubagentData<"token">): MessageDoc {
  return updatePanel(doc, event.runId, (panel) => {
    if (panel.status !== "running") return panel;
    const responseText = appendAtOffset(panel.responseText, event.data.offset, event.data.text);
    return responseText === undefined ? panel : { ...panel, responseText };
  });
}

/** Why: reasoning is kept for audit (never for the master's context), by offset like text. */
export function applySubagentThinking(doc: MessageDoc, event: SubagentData<"thinking">): MessageDoc {
  return updatePanel(doc, event.runId, (panel) => {
    if (panel.status !== "running") return panel;
    const thinking = appendAtOffset(panel.thinking ?? "", event.data.offset, event.data.text);
    return thinking === undefined ? panel : { ...panel, thinking };
  });
}

/**
 * Why: usage is a running total, so the latest report replaces the last one (idempotent);
 * a replayed report with fewer steps than already shown is stale and changes nothing.
 */
export function applySubagentUsage(doc: MessageDoc, event: SubagentData<"usage">): MessageDoc {
  const { chat, system, steps } = event.data;
  return updatePanel(doc, event.runId, (panel) => {
    if (panel.status !== "running" || steps < (panel.stats?.steps ?? 0)) return panel;
    const stats = { runtimeMs: 0, cost: 0, ...panel.stats, chat, system, steps };
    return deepEqual(stats, panel.stats) ? panel : { ...panel, stats };
  });
}

/**
 * Why: the terminal event settles the panel — success shows the final answer, error the
 * message — with end reason, stats and end time. The first terminal event wins, so a
 * replayed one cannot flip a settled panel (only `agent:complete` rewrites it).
 */
export function applySubagentStatus(
  doc: MessageDoc,
  event: AgentEventOf<"subagent_completed"> | AgentEventOf<"subagent_error">,
): MessageDoc {
  return updatePanel(doc, event.runId, (panel) => {
    if (panel.status !== "running") return panel;
    const ended = { stats: event.stats, endReason: event.endReason, endedAt: event.endedAt };
    if (event.type === "subagent_completed") {
      return { ...panel, ...ended, status: "success", responseText: event.response };
    }
    return { ...panel, ...ended, status: "error", error: event.error };
  });
}

/**
 * Why: `agent:complete` carries the stored truth — the clean response the parent model saw
 * (set on the spawning tool node) and the full process, which replaces the panel so the
 * live doc equals the one rebuilt from storage.
 */
export function applyAgentComplete(doc: MessageDoc, event: AgentEventOf<"agent:complete">): MessageDoc {
  const path = callPath(doc, event.parentRunId, event.callId);
  if (!path) return doc;
  const tool = toolAt(doc, path)!;
  const panel = panelFromProcess(event.subagent);
  const same = tool.response === event.response && tool.responseSize === event.responseSize;
  if (same && deepEqual(tool.subagent, panel)) return doc;
  const next = updateToolAt(doc, path, (t) => ({
    ...t,
    response: event.response,
    responseSize: event.responseSize,
    subagent: panel,
  }));
  const runs = indexRuns(next.segments);
  return deepEqual(runs, doc.runs) ? next : { ...next, runs };
}

/**
 * Why: the final response completes any text the stream did not deliver (appended by
 * offset, never re-compared), and every run or call still marked running is closed.
 */
export function applyTurnEnded(doc: MessageDoc, event: AgentEventOf<"turn:ended">): MessageDoc {
  const withText = applyTurnToken(doc, { type: "turn:token", turnId: event.turnId, offset: 0, text: event.response });
  const info = { ...sweepOutcome(event.status), endedAt: event.endedAt };
  const segments = mapShared(withText.segments, (segment): Segment => {
    if (segment.kind !== "tool") return segment;
    const call = sweepTool(segment.call, info);
    return call === segment.call ? segment : { kind: "tool", call };
  });
  return segments === withText.segments ? withText : { ...withText, segments };
}

/** The one entry point: routes an event to its transform; events of another turn are ignored. */
export function applyEvent(doc: MessageDoc, event: AgentEvent): MessageDoc {
  if (event.turnId !== doc.turnId) return doc;
  switch (event.type) {
    case "turn:token":
      return applyTurnToken(doc, event);
    case "tool:call":
      return applyToolCall(doc, event);
    case "tool:result":
      return applyToolResult(doc, event);
    case "subagent_started":
      return applySubagentStarted(doc, event);
    case "subagent_data":
      return applySubagentData(doc, event);
    case "subagent_completed":
    case "subagent_error":
      return applySubagentStatus(doc, event);
    case "agent:complete":
      return applyAgentComplete(doc, event);
    case "turn:ended":
      return applyTurnEnded(doc, event);
    case "turn:started":
    case "turn:usage":
      return doc;
  }
}

function applySubagentData(doc: MessageDoc, event: AgentEventOf<"subagent_data">): MessageDoc {
  switch (event.data.kind) {
    case "tool_call":
      return applySubagentNestedToolCall(doc, event as SubagentData<"tool_call">);
    case "tool_result":
      return applySubagentNestedToolResult(doc, event as SubagentData<"tool_result">);
    case "token":
      return applySubagentResponseToken(doc, event as SubagentData<"token">);
    case "thinking":
      return applySubagentThinking(doc, event as SubagentData<"thinking">);
    case "usage":
      return applySubagentUsage(doc, event as SubagentData<"usage">);
  }
}

function withTool(panel: PanelNode, index: number, tool: ToolNode): PanelNode {
  const toolCalls = panel.toolCalls.slice();
  toolCalls[index] = tool;
  return { ...panel, toolCalls };
}
