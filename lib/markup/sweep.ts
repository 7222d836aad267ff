import type { EndReason, TurnStatus } from "@/lib/contracts";
import { mapShared } from "./deep-equal";
import type { PanelNode, ToolNode } from "./types";

/**
 * When a turn ends, nothing inside it can still be running: a run the agent loop did not
 * close (cancel, crash, server restart) is closed here, in the live doc and in the stored
 * turn alike, so no panel keeps a spinner forever (DESIGN invariant 2).
 */
export function sweepOutcome(status: Exclude<TurnStatus, "running">): { endReason: EndReason; error: string } {
  return {
    endReason: status === "cancelled" ? "killed" : "failed",
    error: `The turn ${status === "completed" ? "ended" : status === "cancelled" ? "was cancelled" : "failed"} before this subagent finished.`,
  };
}

export interface SweepInfo {
  endReason: EndReason;
  error: string;
  endedAt: string;
}

export function sweepTool(tool: ToolNode, info: SweepInfo): ToolNode {
  const panel = tool.subagent && sweepPanel(tool.subagent, info);
  if (tool.status !== "running" && panel === tool.subagent) return tool;
  const next: ToolNode = { ...tool, status: tool.status === "running" ? "error" : tool.status };
  if (panel) next.subagent = panel;
  return next;
}

function sweepPanel(panel: PanelNode, info: SweepInfo): PanelNode {
  const toolCalls = mapShared(panel.toolCalls, (tool) => sweepTool(tool, info));
  if (panel.status !== "running") return toolCalls === panel.toolCalls ? panel : { ...panel, toolCalls };
  return { ...panel, toolCalls, status: "error", endReason: info.endReason, error: info.error, endedAt: info.endedAt };
}
