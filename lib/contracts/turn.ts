import { z } from "zod";
import { definitionRefSchema, type DefinitionRef } from "./agents";
import { attachmentRefSchema, type AttachmentRef } from "./attachment";
import { budgetSchema, type Budget } from "./budget";
import { inputRequestSchema, type InputRequest } from "./input";

/**
 * The one shape of a chat turn, shared by everything that holds one: the server's fold
 * before storage, the browser's state, replay after a reconnect, the rebuild from MongoDB,
 * the agent's own process record, export and the tests. It is plain JSON (no classes, no
 * Maps, no `undefined` values), so two turns compare with deep equality and travel as is.
 *
 * Every agent — the master and each subagent — is a list of steps, one per model request:
 * the text it wrote, its reasoning, and the tool calls it asked for, in that order. A call
 * that spawned a subagent holds that subagent's process, recursively (docs/architecture.md,
 * "The turn").
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

/** `budget_exceeded`: the run's spend, or that of the turn or person above it, reached its budget (see budget.ts). */
export const END_REASONS = ["completed", "failed", "killed", "watchdog_timeout", "ghost_sweep", "budget_exceeded"] as const;
export const endReasonSchema = z.enum(END_REASONS);
export type EndReason = z.infer<typeof endReasonSchema>;

export const RUN_STATUSES = ["running", "success", "error"] as const;
export const runStatusSchema = z.enum(RUN_STATUSES);
export type RunStatus = z.infer<typeof runStatusSchema>;

/**
 * `cancelled`: the call was stopped before it finished (its run was cancelled or killed
 * while it ran, or its turn ended before it had a result). The status alone says so: the
 * text its model read is the same `Error [cancelled]` result (or none) as for any stop.
 */
export const TOOL_STATUSES = ["running", "success", "error", "cancelled"] as const;
export const toolStatusSchema = z.enum(TOOL_STATUSES);
export type ToolStatus = z.infer<typeof toolStatusSchema>;

export const TURN_STATUSES = ["running", "completed", "failed", "cancelled"] as const;
export const turnStatusSchema = z.enum(TURN_STATUSES);
export type TurnStatus = z.infer<typeof turnStatusSchema>;

/**
 * A person's decision on one tool call that needs approval. `pending` while the call
 * waits; `expired` (no answer in APPROVAL_TIMEOUT_MS) and `cancelled` (the run stopped,
 * or the server restarted, before anyone answered) end it unanswered, and `note` says
 * which. `reason` is the asking agent's own words before the call; `preview` a unified
 * diff for file edits, computed when the approval was asked for.
 */
export const APPROVAL_STATES = ["pending", "approved", "denied", "expired", "cancelled"] as const;
export const approvalStateSchema = z.enum(APPROVAL_STATES);
export type ApprovalState = z.infer<typeof approvalStateSchema>;

export const approvalSchema = z.object({
  state: approvalStateSchema,
  requestedAt: z.string(),
  reason: z.string(),
  preview: z.string().optional(),
  decidedAt: z.string().optional(),
  /** The identity id of the person who decided. */
  decidedBy: z.string().optional(),
  denyReason: z.string().optional(),
  /** Why it ended without a decision (expired, cancelled, restart). */
  note: z.string().optional(),
});
export type Approval = z.infer<typeof approvalSchema>;

/** The questions one call may ask; the gate refuses more (a tool looping on questions). */
export const MAX_INPUTS_PER_CALL = 20;

/**
 * A tool call. `response` is a preview of the text the calling model read (for a
 * subagent call: the subagent's condensed, cast result, never its internals);
 * `responseSize` is the whole length, fetched on demand ("Show all").
 */
export interface ToolCall {
  callId: string;
  name: string;
  /** JSON text of the arguments, as the model produced it. */
  parameters: string;
  response: string;
  responseSize: number;
  status: ToolStatus;
  /** Present when the call needed a person's approval. */
  approval?: Approval;
  /** The questions the call asked a person while it ran, in order (see lib/contracts/input.ts); absent when none. */
  inputs?: InputRequest[];
  subagent?: SubagentProcess;
  /**
   * When the model asked for the call (it may wait for a free lane before it runs) and
   * when its result came back. Absent in records from before they were kept (the
   * timeline then says the times are unknown).
   */
  startedAt?: string;
  endedAt?: string;
}

/** One model request of an agent: what it wrote, its reasoning, the calls it made. */
export interface Step {
  text: string;
  /** Reasoning, for audit only: never part of any model context but its own request. */
  thinking: string;
  toolCalls: ToolCall[];
  /**
   * When the step's model request started, and when the step ended: its answer streamed
   * and every call it made returned. Set when the step ends; absent while it runs and in
   * records from before they were kept.
   */
  startedAt?: string;
  endedAt?: string;
}

/**
 * A person's steering message, as injected into a running subagent: before the model
 * request of step `step` (the first step that read it), at `at`. Kept in the process so
 * the panel shows it where it happened, live and after a reload; never shown to a parent.
 */
export const steerSchema = z.object({
  step: z.number().int().nonnegative(),
  message: z.string(),
  at: z.string(),
});
export type Steer = z.infer<typeof steerSchema>;

/** A subagent's full process: everything its parent's model never sees, kept for the UI and audit. */
export interface SubagentProcess {
  runId: string;
  parentRunId: string | null;
  depth: number;
  name: string;
  task: string;
  prompt: string;
  steps: Step[];
  /** Its final answer alone (the text of the step that answered); "" until it completes. */
  response: string;
  stats: TurnStats;
  status: RunStatus;
  endReason?: EndReason;
  error?: string;
  startedAt: string;
  endedAt?: string;
  /** Label of the model it ran on; absent in records from before it was kept. */
  model?: string;
  /** The definition made in the app it ran, at which version (see lib/contracts/agents.ts); absent for the operator's. */
  definition?: DefinitionRef;
  /** The failed, killed or timed-out run this one re-runs (Retry); the old run links back by deriving it. */
  retryOf?: string;
  /** Steering messages in the order they were injected; absent when there were none. */
  steering?: Steer[];
  /** Its definition's budget; absent when it has none. */
  budget?: Budget;
}

export interface ChatTurn {
  turnId: string;
  sessionId: string;
  prompt: string;
  /** The master agent's steps: its text and tool calls in the order they happened. */
  steps: Step[];
  stats: TurnStats;
  status: TurnStatus;
  error?: string;
  createdAt: string;
  endedAt?: string;
  /** Steering messages to the master, as for a subagent; absent when there were none. */
  steering?: Steer[];
  /** Label of the model the master ran on (the chat's choice then); absent in records from before it was kept. */
  model?: string;
  /**
   * The turn this one follows when it is not the one started just before it (an edited
   * prompt, a regenerated answer, a turn on a branch gone back to); null: a new first
   * turn. Absent: it follows the turn started before it (lib/branches/branch-tree.ts).
   */
  parentTurnId?: string | null;
  /**
   * The account that sent the prompt (the browser's identity without accounts): in a chat
   * with members, who asked. Absent in turns from before it was kept.
   */
  sentBy?: string;
  /** The chat's attachments the prompt named, as they were when it was sent; absent when it named none. */
  attachments?: AttachmentRef[];
  /** The turn's budget (the sender's, or TURN_BUDGET_*); absent when it had none. */
  budget?: Budget;
  /** How the master ended when its status alone does not say: `budget_exceeded` (status `failed`). */
  endReason?: EndReason;
}

export const toolCallSchema: z.ZodType<ToolCall> = z.lazy(() =>
  z.object({
    callId: z.string(),
    name: z.string(),
    parameters: z.string(),
    response: z.string(),
    responseSize: z.number().int().nonnegative(),
    status: toolStatusSchema,
    approval: approvalSchema.optional(),
    inputs: z.array(inputRequestSchema).max(MAX_INPUTS_PER_CALL).optional(),
    subagent: subagentProcessSchema.optional(),
    startedAt: z.string().optional(),
    endedAt: z.string().optional(),
  }),
);

/**
 * The tool calls one step may hold where a turn comes from outside (a session file): the
 * agent loop runs at most MAX_TOOL_CALLS_PER_REPLY (≤ this) per reply, so no turn it
 * recorded holds more, and a step of unbounded calls is refused before it is folded.
 */
export const MAX_TOOL_CALLS_PER_STEP = 1_000;

/**
 * The tool calls one session file may hold, over all its turns and subagents: an import
 * writes each call as its live turn did, so this bounds how long one import keeps the
 * database busy (tens of seconds on a small machine).
 */
export const MAX_IMPORT_TOOL_CALLS = 20_000;

/** The attachments one prompt may name (turn:send, a turn of a session file). */
export const MAX_PROMPT_ATTACHMENTS = 20;

export const stepSchema: z.ZodType<Step> = z.lazy(() =>
  z.object({
    text: z.string(),
    thinking: z.string(),
    toolCalls: z.array(toolCallSchema),
    startedAt: z.string().optional(),
    endedAt: z.string().optional(),
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
    steps: z.array(stepSchema),
    response: z.string(),
    stats: turnStatsSchema,
    status: runStatusSchema,
    endReason: endReasonSchema.optional(),
    error: z.string().optional(),
    startedAt: z.string(),
    endedAt: z.string().optional(),
    model: z.string().optional(),
    definition: definitionRefSchema.optional(),
    retryOf: z.string().optional(),
    steering: z.array(steerSchema).optional(),
    budget: budgetSchema.optional(),
  }),
);

export const chatTurnSchema: z.ZodType<ChatTurn> = z.object({
  turnId: z.string(),
  sessionId: z.string(),
  prompt: z.string(),
  steps: z.array(stepSchema),
  stats: turnStatsSchema,
  status: turnStatusSchema,
  error: z.string().optional(),
  createdAt: z.string(),
  endedAt: z.string().optional(),
  steering: z.array(steerSchema).optional(),
  model: z.string().optional(),
  parentTurnId: z.string().nullable().optional(),
  sentBy: z.string().optional(),
  attachments: z.array(attachmentRefSchema).max(MAX_PROMPT_ATTACHMENTS).optional(),
  budget: budgetSchema.optional(),
  endReason: endReasonSchema.optional(),
});

export interface SessionSummary {
  sessionId: string;
  title: string;
  createdAt: string;
  updatedAt: string;
  /** A chat someone else shared with the reader: its owner's name and the reader's role (docs/members.md); absent on one's own. */
  shared?: { owner: string; role: "viewer" | "collaborator" };
}

/** Tool output shown inline is capped; the rest is fetched over HTTP ("Show all"). */
export const TOOL_RESPONSE_PREVIEW_CHARS = 16_000;

/**
 * A tool output as it travels in an event: the preview every reader gets, its full
 * length, and — only when the preview is cut — the whole text, which the server stores
 * and strips before relaying.
 */
export interface ToolOutput {
  response: string;
  responseSize: number;
  fullResponse?: string;
}

export function toolOutputOf(text: string): ToolOutput {
  if (text.length <= TOOL_RESPONSE_PREVIEW_CHARS) return { response: text, responseSize: text.length };
  return { response: text.slice(0, TOOL_RESPONSE_PREVIEW_CHARS), responseSize: text.length, fullResponse: text };
}

/** The master's words: every step's text, as one answer (what "Copy answer" copies). */
export function stepsText(steps: readonly Step[]): string {
  return steps
    .map((s) => s.text.trim())
    .filter(Boolean)
    .join("\n\n");
}
