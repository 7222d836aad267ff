import { z } from "zod";

/**
 * The stored shapes of seed 000 (`IChatToolCall`, `IChatSubagentProcess`, turn stats),
 * extended with what the UI and the lifecycle need (run ids, status, end reasons).
 * These are the DTOs the server assembles from MongoDB and the browser renders; the
 * same shapes feed `buildSessionContext`.
 */

export const usageSchema = z.object({
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
});
export type Usage = z.infer<typeof usageSchema>;

export const ZERO_USAGE: Usage = Object.freeze({ inputTokens: 0, outputTokens: 0 });

/** Chat usage is the answering model's; system usage is condensation and compaction. */
export const turnStatsSchema = z.object({
  chat: usageSchema,
  system: usageSchema,
  steps: z.number().int().nonnegative(),
  runtimeMs: z.number().nonnegative(),
  cost: z.number().nonnegative(),
});
export type TurnStats = z.infer<typeof turnStatsSchema>;

export function emptyStats(): TurnStats {
  return { chat: { ...ZERO_USAGE }, system: { ...ZERO_USAGE }, steps: 0, runtimeMs: 0, cost: 0 };
}

export const END_REASONS = ["completed", "failed", "killed", "watchdog_timeout", "ghost_sweep"] as const;
export const endReasonSchema = z.enum(END_REASONS);
export type EndReason = z.infer<typeof endReasonSchema>;

export const runStatusSchema = z.enum(["running", "success", "error"]);
export type RunStatus = z.infer<typeof runStatusSchema>;

export const toolStatusSchema = z.enum(["running", "success", "error"]);
export type ToolStatus = z.infer<typeof toolStatusSchema>;

/**
 * A tool call as stored. `response` is the clean text the calling model saw (for a
 * subagent call: the subagent's condensed result, never its internals). Long responses
 * travel as a preview; `responseSize` is the full length, fetched on demand.
 */
export interface ToolCall {
  callId: string;
  name: string;
  /** JSON text of the arguments, as the model produced it. */
  parameters: string;
  response: string;
  responseSize: number;
  status: ToolStatus;
  /** Length of the owner's response text when the call was made: orders text and calls. */
  textOffset: number;
  subagent?: SubagentProcess;
}

/** A subagent's full process: everything the master never sees, kept for the UI and audit. */
export interface SubagentProcess {
  runId: string;
  parentRunId: string | null;
  depth: number;
  name: string;
  task: string;
  prompt: string;
  thinking?: string;
  response: string;
  toolCalls: ToolCall[];
  stats: TurnStats;
  status: RunStatus;
  endReason?: EndReason;
  error?: string;
  startedAt: string;
  endedAt?: string;
}

export const toolCallSchema: z.ZodType<ToolCall> = z.lazy(() =>
  z.object({
    callId: z.string(),
    name: z.string(),
    parameters: z.string(),
    response: z.string(),
    responseSize: z.number().int().nonnegative(),
    status: toolStatusSchema,
    textOffset: z.number().int().nonnegative(),
    subagent: subagentProcessSchema.optional(),
  }),
);

export const subagentProcessSchema: z.ZodType<SubagentProcess> = z.lazy(() =>
  z.object({
    runId: z.string(),
    parentRunId: z.string().nullable(),
    depth: z.number().int().nonnegative(),
    name: z.string(),
    task: z.string(),
    prompt: z.string(),
    thinking: z.string().optional(),
    response: z.string(),
    toolCalls: z.array(toolCallSchema),
    stats: turnStatsSchema,
    status: runStatusSchema,
    endReason: endReasonSchema.optional(),
    error: z.string().optional(),
    startedAt: z.string(),
    endedAt: z.string().optional(),
  }),
);

export const turnStatusSchema = z.enum(["running", "completed", "failed", "cancelled"]);
export type TurnStatus = z.infer<typeof turnStatusSchema>;

export interface ChatTurn {
  turnId: string;
  sessionId: string;
  prompt: string;
  response: string;
  thinking?: string;
  toolCalls: ToolCall[];
  stats: TurnStats;
  status: TurnStatus;
  error?: string;
  createdAt: string;
  updatedAt: string;
}

export const chatTurnSchema: z.ZodType<ChatTurn> = z.object({
  turnId: z.string(),
  sessionId: z.string(),
  prompt: z.string(),
  response: z.string(),
  thinking: z.string().optional(),
  toolCalls: z.array(toolCallSchema),
  stats: turnStatsSchema,
  status: turnStatusSchema,
  error: z.string().optional(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export interface SessionSummary {
  sessionId: string;
  title: string;
  createdAt: string;
  updatedAt: string;
}

/** Tool output shown inline is capped; the rest is fetched over HTTP ("show all"). */
export const TOOL_RESPONSE_PREVIEW_CHARS = 16_000;

export function previewOf(text: string): { response: string; responseSize: number } {
  return {
    response: text.length > TOOL_RESPONSE_PREVIEW_CHARS ? text.slice(0, TOOL_RESPONSE_PREVIEW_CHARS) : text,
    responseSize: text.length,
  };
}
