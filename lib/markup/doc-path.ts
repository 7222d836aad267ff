import type { MessageDoc, PanelNode, Segment, ToolNode } from "./types";

/**
 * Addressing inside a MessageDoc. A tool path is `[segmentIndex, toolIndex, …]`: the
 * segment holds a master tool call; each further index picks a tool call inside the panel
 * of the tool before it. A panel's path is the path of the tool call that spawned it, so
 * the `runs` index maps runId → tool path. Updates copy only the nodes on the path.
 */
export type ToolPath = readonly number[];

/** Builds the runId → path index by one walk of the tree (used on rebuild and parse). */
export function indexRuns(segments: readonly Segment[]): Record<string, number[]> {
  const runs: Record<string, number[]> = {};
  const visit = (tool: ToolNode, path: number[]): void => {
    const panel = tool.subagent;
    if (!panel) return;
    if (!Object.hasOwn(runs, panel.runId)) runs[panel.runId] = path;
    panel.toolCalls.forEach((child, i) => visit(child, [...path, i]));
  };
  segments.forEach((segment, i) => {
    if (segment.kind === "tool") visit(segment.call, [i]);
  });
  return runs;
}

export function toolAt(doc: MessageDoc, path: ToolPath): ToolNode | undefined {
  const segment = doc.segments[path[0] ?? -1];
  if (!segment || segment.kind !== "tool") return undefined;
  let tool: ToolNode | undefined = segment.call;
  for (let i = 1; i < path.length && tool; i++) tool = tool.subagent?.toolCalls[path[i]!];
  return tool;
}

/** The path of run `runId`'s panel, trusting the index but verifying it. */
export function runPath(doc: MessageDoc, runId: string): ToolPath | undefined {
  if (!Object.hasOwn(doc.runs, runId)) return undefined;
  const path = doc.runs[runId]!;
  return toolAt(doc, path)?.subagent?.runId === runId ? path : undefined;
}

export function panelAt(doc: MessageDoc, path: ToolPath): PanelNode | undefined {
  return toolAt(doc, path)?.subagent;
}

/** Index of the master segment holding tool call `callId`, scanning from the newest. */
export function masterToolIndex(doc: MessageDoc, callId: string): number {
  for (let i = doc.segments.length - 1; i >= 0; i--) {
    const segment = doc.segments[i]!;
    if (segment.kind === "tool" && segment.call.callId === callId) return i;
  }
  return -1;
}

/**
 * Path of tool call `callId` made by run `parentRunId` (`null` = the master), or
 * undefined when that run or call is unknown (e.g. a stream joined mid-way).
 */
export function callPath(doc: MessageDoc, parentRunId: string | null, callId: string): ToolPath | undefined {
  if (parentRunId === null) {
    const index = masterToolIndex(doc, callId);
    return index < 0 ? undefined : [index];
  }
  const parent = runPath(doc, parentRunId);
  if (!parent) return undefined;
  const index = panelAt(doc, parent)!.toolCalls.findIndex((c) => c.callId === callId);
  return index < 0 ? undefined : [...parent, index];
}

/** Replaces the tool at `path` with `fn(tool)`; returns `doc` itself when nothing changed. */
export function updateToolAt(doc: MessageDoc, path: ToolPath, fn: (tool: ToolNode) => ToolNode): MessageDoc {
  const segmentIndex = path[0] ?? -1;
  const segment = doc.segments[segmentIndex];
  if (!segment || segment.kind !== "tool") return doc;
  const call = updateWithin(segment.call, path, 1, fn);
  if (call === segment.call) return doc;
  const segments = doc.segments.slice();
  segments[segmentIndex] = { kind: "tool", call };
  return { ...doc, segments };
}

function updateWithin(tool: ToolNode, path: ToolPath, at: number, fn: (tool: ToolNode) => ToolNode): ToolNode {
  if (at === path.length) return fn(tool);
  const panel = tool.subagent;
  const index = path[at]!;
  const child = panel?.toolCalls[index];
  if (!panel || !child) return tool;
  const next = updateWithin(child, path, at + 1, fn);
  if (next === child) return tool;
  const toolCalls = panel.toolCalls.slice();
  toolCalls[index] = next;
  return { ...tool, subagent: { ...panel, toolCalls } };
}

/** Replaces run `runId`'s panel with `fn(panel)`; unknown runs leave the doc as it is. */
export function updatePanel(doc: MessageDoc, runId: string, fn: (panel: PanelNode) => PanelNode): MessageDoc {
  const path = runPath(doc, runId);
  if (!path) return doc;
  return updateToolAt(doc, path, (tool) => {
    const panel = fn(tool.subagent!);
    return panel === tool.subagent ? tool : { ...tool, subagent: panel };
  });
}
