import { z } from "zod";
import { usageSchema } from "./turn";

/**
 * One request to a model, as it was sent and as it came back: the audit record behind the
 * context inspector and exports. Every agent's requests are recorded (the master's
 * `runId` is null), the system model's too (`purpose: "system"`: compaction and result
 * condensation). `index` counts the requests of one agent and purpose from 0, so a chat
 * request's index is its step.
 */

export const modelMessageSchema = z.object({
  role: z.enum(["system", "user", "assistant", "tool"]),
  content: z.string(),
  toolCalls: z.array(z.object({ id: z.string(), name: z.string(), arguments: z.string() })).optional(),
  toolCallId: z.string().optional(),
  toolName: z.string().optional(),
});
export type ModelMessage = z.infer<typeof modelMessageSchema>;

export const modelToolSpecSchema = z.object({
  name: z.string(),
  description: z.string(),
  parameters: z.record(z.string(), z.unknown()),
});

export const MODEL_CALL_PURPOSES = ["chat", "system"] as const;

/** What the record says about the request without its messages (lists, the ledger). */
export const modelCallSummarySchema = z.object({
  callId: z.string(),
  turnId: z.string(),
  runId: z.string().nullable(),
  purpose: z.enum(MODEL_CALL_PURPOSES),
  index: z.number().int().nonnegative(),
  /** The model name sent to the provider, and the label people see. */
  model: z.string(),
  modelLabel: z.string(),
  startedAt: z.string(),
  endedAt: z.string(),
  messageCount: z.number().int().nonnegative(),
  /** The request's size by the runtime's own estimator (what it budgets with), messages and tools. */
  estimatedInputTokens: z.number().int().nonnegative().default(0),
  toolCount: z.number().int().nonnegative(),
  /** Usage exactly as the provider reported it; null when it reported none. */
  usage: usageSchema.nullable(),
  finishReason: z.enum(["stop", "tool_calls", "length", "other"]).nullable(),
  /** Why the request failed or stopped (aborted, a model error); null when it finished. */
  error: z.string().nullable(),
});
export type ModelCallSummary = z.infer<typeof modelCallSummarySchema>;

export const modelCallRecordSchema = modelCallSummarySchema.extend({
  request: z.object({ messages: z.array(modelMessageSchema), tools: z.array(modelToolSpecSchema) }),
  response: z.object({
    text: z.string(),
    thinking: z.string(),
    toolCalls: z.array(z.object({ id: z.string(), name: z.string(), arguments: z.string() })),
    /** Tool calls the reply asked for beyond those kept (the request's maxToolCalls): counted, not recorded. */
    toolCallsLeftOut: z.number().int().nonnegative().optional(),
  }),
});
export type ModelCallRecord = z.infer<typeof modelCallRecordSchema>;

/** Where the runtime hands each finished request (the server stores it). */
export type ModelCallSink = (record: ModelCallRecord) => void;
