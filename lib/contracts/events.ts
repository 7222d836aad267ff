import { z } from "zod";
import { definitionRefSchema } from "./agents";
import { attachmentRefSchema } from "./attachment";
import { budgetSchema } from "./budget";
import { MAX_PROMPT_ATTACHMENTS } from "./turn";
import { inputRequestSchema } from "./input";
import { approvalSchema, chatTurnSchema, endReasonSchema, toolStatusSchema, turnStatsSchema, turnStatusSchema } from "./turn";

/**
 * Events the agent runtime publishes while a turn runs. The server persists each one,
 * stamps it with the session's sequence number and relays it; every holder of a turn
 * folds the same events with the one reducer (`lib/turn/reduce.ts`). Text deltas carry
 * their step and `offset` so that applying an event twice, or after a reconnect
 * overlap, changes nothing.
 *
 * What an agent does travels as one payload (`AgentData`) whoever acts: under
 * `turn:data` for the master (`runId` null) and `subagent_data` for a subagent. The other
 * events open and close the turn and its runs.
 */

const base = { turnId: z.string() };
/** Index of the model request (step) of the acting agent, from 0. */
const step = z.number().int().nonnegative();
const offset = z.number().int().nonnegative();
/** A tool output: its preview, full length, and the whole text only while it travels to storage. */
const toolOutput = {
  response: z.string(),
  responseSize: z.number().int().nonnegative(),
  fullResponse: z.string().optional(),
};
/** When it happened (ISO time); absent in events from before times were kept. */
const at = z.string().optional();
/** The timing of the step that just ended (see Step.startedAt), on the usage event its end publishes. */
const stepTiming = z.object({ step, startedAt: z.string(), endedAt: z.string() });
const runRef = {
  runId: z.string(),
  parentRunId: z.string().nullable(),
  depth: z.number().int().min(1),
};

export const turnStartedSchema = z.object({
  type: z.literal("turn:started"),
  ...base,
  prompt: z.string(),
  createdAt: z.string(),
  /** Label of the model the master runs on; absent in events from before it was recorded. */
  model: z.string().optional(),
  /** See `ChatTurn.parentTurnId`: present only when the turn does not follow the one started before it. */
  parentTurnId: z.string().nullable().optional(),
  /** See `ChatTurn.sentBy`. */
  sentBy: z.string().optional(),
  /** The attachments the prompt names; absent when none. */
  attachments: z.array(attachmentRefSchema).max(MAX_PROMPT_ATTACHMENTS).optional(),
  /** The turn's budget; absent when it has none. */
  budget: budgetSchema.optional(),
});

export const subagentStartedSchema = z.object({
  type: z.literal("subagent_started"),
  ...base,
  ...runRef,
  /** The tool call (in the parent's run) that spawned this subagent. */
  callId: z.string(),
  name: z.string(),
  task: z.string(),
  prompt: z.string(),
  startedAt: z.string(),
  /** Label of the model it runs on (e.g. "gpt-4o via api.openai.com"); absent in events from before it was recorded. */
  model: z.string().optional(),
  /** The definition made in the app it runs, at which version; absent for the operator's and the built-ins. */
  definition: definitionRefSchema.optional(),
  /** Set when this run retries an earlier one (a failed, killed or timed-out run). */
  retryOf: z.string().optional(),
  /** Its definition's budget; absent when it has none. */
  budget: budgetSchema.optional(),
});

/**
 * What any agent does, the master or a subagent: one payload, folded by one reducer, stored
 * by one writer. Text carries its step and `offset` (see lib/turn/text-offset.ts); `usage`
 * is the run's running total (the latest replaces the last); `steer` is a person's message
 * injected before step `step`, `index` its place among the run's steers; `approval` is a
 * call's approval as asked for (`pending`) and once more as it ended; `input` is a question
 * the call asked a person (its `index`-th), as asked and once more as it ended.
 */
export const agentDataSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("token"), step, offset, text: z.string() }),
  z.object({ kind: z.literal("thinking"), step, offset, text: z.string() }),
  z.object({ kind: z.literal("tool_call"), step, callId: z.string(), name: z.string(), parameters: z.string(), at }),
  z.object({ kind: z.literal("tool_result"), callId: z.string(), ...toolOutput, status: toolStatusSchema, at }),
  z.object({ kind: z.literal("usage"), stats: turnStatsSchema, stepTiming: stepTiming.optional() }),
  z.object({ kind: z.literal("steer"), step, index: z.number().int().nonnegative(), message: z.string(), at: z.string() }),
  z.object({ kind: z.literal("approval"), callId: z.string(), approval: approvalSchema }),
  z.object({ kind: z.literal("input"), callId: z.string(), index: z.number().int().nonnegative(), input: inputRequestSchema }),
]);
export type AgentData = z.infer<typeof agentDataSchema>;
export type AgentDataKind = AgentData["kind"];
export type AgentDataOf<K extends AgentDataKind> = Extract<AgentData, { kind: K }>;

/** The master's doings: the payload under the turn's name, `runId` null. */
export const turnDataSchema = z.object({
  type: z.literal("turn:data"),
  ...base,
  runId: z.null(),
  data: agentDataSchema,
});

/** A subagent's doings: the same payload, tagged with its run. */
export const subagentDataSchema = z.object({
  type: z.literal("subagent_data"),
  ...base,
  ...runRef,
  data: agentDataSchema,
});

export const subagentCompletedSchema = z.object({
  type: z.literal("subagent_completed"),
  ...base,
  ...runRef,
  /** The subagent's final answer alone (before condensation): the text of the step that answered. */
  response: z.string(),
  stats: turnStatsSchema,
  endReason: z.literal("completed"),
  endedAt: z.string(),
});

export const subagentErrorSchema = z.object({
  type: z.literal("subagent_error"),
  ...base,
  ...runRef,
  error: z.string(),
  stats: turnStatsSchema,
  endReason: endReasonSchema.exclude(["completed"]),
  endedAt: z.string(),
});

/**
 * A finished subagent's clean result: what its parent's model read (condensed and cast),
 * set on the call that spawned it. Emitted after `subagent_completed` or `subagent_error`,
 * once the result has been condensed. Its process is not repeated here: every holder has
 * folded it from the run's own events (see docs/architecture.md, "Clean context").
 */
export const agentCompleteSchema = z.object({
  type: z.literal("agent:complete"),
  ...base,
  callId: z.string(),
  runId: z.string(),
  parentRunId: z.string().nullable(),
  ...toolOutput,
});

/** How the runs, calls and approvals a turn left running end with it (see `endRunning` in lib/turn/reduce.ts). */
export const runsEndSchema = z.object({
  endReason: endReasonSchema.exclude(["completed"]),
  /** A run's error. */
  error: z.string(),
  /** A pending approval's note. */
  note: z.string(),
});
export type RunsEnd = z.infer<typeof runsEndSchema>;

export const turnEndedSchema = z.object({
  type: z.literal("turn:ended"),
  ...base,
  status: turnStatusSchema.exclude(["running"]),
  stats: turnStatsSchema,
  error: z.string().optional(),
  endedAt: z.string(),
  /** Absent: as the status says (a cancel stops them, a failure fails them). */
  runsEnd: runsEndSchema.optional(),
  /** How the master ended when the status alone does not say (`budget_exceeded`, with status `failed`). */
  endReason: endReasonSchema.exclude(["completed"]).optional(),
});

export const agentEventSchema = z.discriminatedUnion("type", [
  turnStartedSchema,
  turnDataSchema,
  subagentStartedSchema,
  subagentDataSchema,
  subagentCompletedSchema,
  subagentErrorSchema,
  agentCompleteSchema,
  turnEndedSchema,
]);
export type AgentEvent = z.infer<typeof agentEventSchema>;
export type AgentEventType = AgentEvent["type"];
export type AgentEventOf<K extends AgentEventType> = Extract<AgentEvent, { type: K }>;

/** The port through which the agent runtime reports; the server implements it. */
export type Publish = (event: AgentEvent) => void;

/** An event of what one agent did: the master's `turn:data` or a subagent's `subagent_data`. */
export type AgentDataEvent = AgentEventOf<"turn:data"> | AgentEventOf<"subagent_data">;

export function isDataEvent(event: AgentEvent): event is AgentDataEvent {
  return event.type === "turn:data" || event.type === "subagent_data";
}

/** An agent event as relayed to browsers: stamped with its session and sequence number. */
export type SessionEvent = AgentEvent & { sessionId: string; seq: number };

export const sessionSnapshotSchema = z.object({
  sessionId: z.string(),
  title: z.string(),
  seq: z.number().int().nonnegative(),
  turns: z.array(chatTurnSchema),
  /** For each turn shown that has alternatives (edits, regenerations): all of them, oldest first. */
  siblings: z.record(z.string(), z.array(z.string())).optional(),
});
export type SessionSnapshot = z.infer<typeof sessionSnapshotSchema>;
