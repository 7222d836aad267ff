import type { EndReason, RunStatus, ToolStatus, TurnStats } from "@/lib/contracts";

/**
 * The assistant message as a tree: the in-memory form of seed 001's `<SubagentExecution>`
 * markup. Transforms update it by path (copying only the nodes on the way down), so the
 * cost of one event does not grow with the length of the text; `serializeMarkup` turns
 * it into the canonical markup string (escaped), and `parseMarkup` reads that back.
 *
 * Every node is plain data (JSON-safe, no classes, no Maps), so two docs can be compared
 * with deep equality and sent anywhere.
 */
export interface MessageDoc {
  turnId: string;
  /** Text and tool calls of the master agent, in the order they happened. */
  segments: Segment[];
  /** Total length of the master's text, for idempotent token offsets. */
  textLength: number;
  /**
   * Path index: runId → where its panel sits, so an event finds its panel in O(depth)
   * instead of walking the tree. `[segmentIndex, toolIndex, toolIndex, …]`: the segment
   * holds the depth-1 panel, each further index picks a tool call in the panel above.
   * Derived from `segments` (see `indexRuns`); kept so that equal trees have equal docs.
   */
  runs: Record<string, number[]>;
}

export type Segment = { kind: "text"; text: string } | { kind: "tool"; call: ToolNode };

export interface ToolNode {
  callId: string;
  name: string;
  parameters: string;
  /** Preview of the result; `responseSize` is the full length. */
  response: string;
  responseSize: number;
  status: ToolStatus;
  /** Present when this call spawned a subagent: its `<SubagentExecution>` panel. */
  subagent?: PanelNode;
}

/** One `<SubagentExecution>` panel. */
export interface PanelNode {
  runId: string;
  parentRunId: string | null;
  depth: number;
  name: string;
  task: string;
  status: RunStatus;
  /** Streaming text while running; the subagent's final answer once done. */
  responseText: string;
  /** The subagent's reasoning, for audit; never part of any model context. */
  thinking?: string;
  toolCalls: ToolNode[];
  stats?: TurnStats;
  endReason?: EndReason;
  error?: string;
  startedAt: string;
  endedAt?: string;
}

export function emptyDoc(turnId: string): MessageDoc {
  return { turnId, segments: [], textLength: 0, runs: {} };
}
