"use client";

import { createContext, useContext, type ComponentType } from "react";
import type { ToolCallViewProps } from "@/components/subagents/tool-chip";

/**
 * How a step's calls are drawn, handed in by whoever shows the steps (the message and the
 * subagent panel pass `ToolCallView`): a call may be a subagent's panel, which lists steps
 * of its own, and injecting the view keeps that recursion out of the import graph.
 */
export type CallView = ComponentType<ToolCallViewProps>;

const CallViewContext = createContext<CallView | null>(null);

export const CallViewProvider = CallViewContext.Provider;

export function useCallView(): CallView {
  const view = useContext(CallViewContext);
  if (!view) throw new Error("steps are drawn inside MasterSteps or RunSteps, which say how to draw a call");
  return view;
}
