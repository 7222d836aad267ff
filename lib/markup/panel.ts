import type { AgentEventOf, SubagentProcess, ToolCall } from "@/lib/contracts";
import { emptyStats } from "@/lib/contracts";
import type { PanelNode, ToolNode } from "./types";

/**
 * Stored shapes → tree nodes. Used by `docFromTurn` and by `agent:complete` (which
 * replaces a live panel with the stored process), so both paths build identical nodes:
 * optional fields are present exactly when the stored value is defined.
 */
export function toolNodeFromCall(call: ToolCall): ToolNode {
  const node: ToolNode = {
    callId: call.callId,
    name: call.name,
    parameters: call.parameters,
    response: call.response,
    responseSize: call.responseSize,
    status: call.status,
  };
  if (call.subagent) node.subagent = panelFromProcess(call.subagent);
  return node;
}

export function panelFromProcess(process: SubagentProcess): PanelNode {
  const panel: PanelNode = {
    runId: process.runId,
    parentRunId: process.parentRunId,
    depth: process.depth,
    name: process.name,
    task: process.task,
    status: process.status,
    responseText: process.response,
    toolCalls: process.toolCalls.map(toolNodeFromCall),
    stats: process.stats,
    startedAt: process.startedAt,
  };
  if (process.thinking !== undefined) panel.thinking = process.thinking;
  if (process.endReason !== undefined) panel.endReason = process.endReason;
  if (process.error !== undefined) panel.error = process.error;
  if (process.endedAt !== undefined) panel.endedAt = process.endedAt;
  return panel;
}

/** The panel a `subagent_started` event opens: running, empty, zero stats. */
export function newPanel(event: AgentEventOf<"subagent_started">): PanelNode {
  return {
    runId: event.runId,
    parentRunId: event.parentRunId,
    depth: event.depth,
    name: event.name,
    task: event.task,
    status: "running",
    responseText: "",
    toolCalls: [],
    stats: emptyStats(),
    startedAt: event.startedAt,
  };
}
