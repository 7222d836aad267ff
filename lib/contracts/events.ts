import { z } from "zod";
import {
  approvalSchema,
  chatTurnSchema,
  endReasonSchema,
  subagentProcessSchema,
  toolStatusSchema,
  turnStatsSchema,
  turnStatusSchema,
  usageSchema,
} from "./turn";

/**
 * Events the agent runtime publishes while a turn runs. The server persists each one,
 * stamps it with the session's sequence number and relays it; every holder of a turn
 * folds the same events with the one reducer (`lib/turn/reduce.ts`). Text deltas carry
 * their step and `offset` so that applying an event twice, or after a reconnect
 * overlap, changes nothing.
 *
 * `runId` names the subagent that acted; master events have none.
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
});

export const turnTokenSchema = z.object({
  type: z.literal("turn:token"),
  ...base,
  step,
  offset,
  text: z.string(),
});

/** A tool call made by the master agent — subagent calls included. */
export const toolCallStartedSchema = z.object({
  type: z.literal("tool:call"),
  ...base,
  step,
  callId: z.string(),
  name: z.string(),
  parameters: z.string(),
  at,
});

export const toolResultSchema = z.object({
  type: z.literal("tool:result"),
  ...base,
  callId: z.string(),
  ...toolOutput,
  status: toolStatusSchema,
  at,
});

/**
 * A call of any agent (`runId` null = the master) waits for, or got, a person's decision.
 * Published when the approval is asked for (`pending`) and once more when it ends.
 */
export const toolApprovalSchema = z.object({
  type: z.literal("tool:approval"),
  ...base,
  runId: z.string().nullable(),
  callId: z.string(),
  approval: approvalSchema,
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
  /** Set when this run retries an earlier one (a failed, killed or timed-out run). */
  retryOf: z.string().optional(),
});

export const subagentDataPayloadSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("tool_call"), step, callId: z.string(), name: z.string(), parameters: z.string(), at }),
  z.object({ kind: z.literal("tool_result"), callId: z.string(), ...toolOutput, status: toolStatusSchema, at }),
  z.object({ kind: z.literal("token"), step, offset, text: z.string() }),
  z.object({ kind: z.literal("thinking"), step, offset, text: z.string() }),
  z.object({ kind: z.literal("usage"), chat: usageSchema, system: usageSchema, steps: z.number().int(), stepTiming: stepTiming.optional() }),
  /** A person's steering message, injected before step `step`; `index` is its place among the run's steers (replays find it again). */
  z.object({ kind: z.literal("steer"), step, index: z.number().int().nonnegative(), message: z.string(), at: z.string() }),
]);
export type SubagentDataPayload = z.infer<typeof subagentDataPayloadSchema>;

export const subagentDataSchema = z.object({
  type: z.literal("subagent_data"),
  ...base,
  ...runRef,
  data: subagentDataPayloadSchema,
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
 * Seed 000: a finished subagent's clean response (what the parent model saw) together
 * with its full process, for storage and the UI. Emitted after `subagent_completed` or
 * `subagent_error`, once the result has been condensed.
 */
export const agentCompleteSchema = z.object({
  type: z.literal("agent:complete"),
  ...base,
  callId: z.string(),
  runId: z.string(),
  parentRunId: z.string().nullable(),
  /** The clean result the parent's model read (condensed and cast). */
  ...toolOutput,
  subagent: subagentProcessSchema,
});

export const turnUsageSchema = z.object({
  type: z.literal("turn:usage"),
  ...base,
  stats: turnStatsSchema,
  stepTiming: stepTiming.optional(),
});

export const turnEndedSchema = z.object({
  type: z.literal("turn:ended"),
  ...base,
  status: turnStatusSchema.exclude(["running"]),
  stats: turnStatsSchema,
  error: z.string().optional(),
  endedAt: z.string(),
});

export const agentEventSchema = z.discriminatedUnion("type", [
  turnStartedSchema,
  turnTokenSchema,
  toolCallStartedSchema,
  toolResultSchema,
  toolApprovalSchema,
  subagentStartedSchema,
  subagentDataSchema,
  subagentCompletedSchema,
  subagentErrorSchema,
  agentCompleteSchema,
  turnUsageSchema,
  turnEndedSchema,
]);
export type AgentEvent = z.infer<typeof agentEventSchema>;
export type AgentEventType = AgentEvent["type"];
export type AgentEventOf<K extends AgentEventType> = Extract<AgentEvent, { type: K }>;

/** The port through which the agent runtime reports; the server implements it. */
export type Publish = (event: AgentEvent) => void;

/** An agent event as relayed to browsers: stamped with its session and sequence number. */
export type SessionEvent = AgentEvent & { sessionId: string; seq: number };

export const sessionSnapshotSchema = z.object({
  sessionId: z.string(),
  title: z.string(),
  seq: z.number().int().nonnegative(),
  turns: z.array(chatTurnSchema),
});
export type SessionSnapshot = z.infer<typeof sessionSnapshotSchema>;
