import { z } from "zod";
import { wellFormed } from "./well-formed";
import { modelKeySchema } from "./catalog";
import { MAX_PROMPT_ATTACHMENTS } from "./turn";
import { budgetSchema } from "./budget";
import { inputContentSchema, type InputContent } from "./input";

/** Longest prompt a person may send; larger payloads are refused before any work. */
export const MAX_PROMPT_CHARS = 100_000;
export const MAX_TITLE_CHARS = 200;
export const MAX_STEER_CHARS = 10_000;
export const MAX_DENY_REASON_CHARS = 2_000;

const id = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_-]+$/, "must be an id");
/** At least one character a person can see: not only spaces, zero-width or bidi controls. */
const VISIBLE = /[^\s\p{Cc}\p{Cf}\p{Mn}\p{Zl}\p{Zp}]/u;
const visibleText = (max: number, tooLong?: string) =>
  z.string().trim().min(1, "must not be empty").max(max, tooLong).regex(VISIBLE, "must contain visible text").transform(wellFormed);
const title = visibleText(MAX_TITLE_CHARS);

export const emptySchema = z.strictObject({});
export const sessionCreateSchema = z.strictObject({ title: title.optional() });
export const sessionRenameSchema = z.strictObject({ sessionId: id, title });
export const sessionRefSchema = z.strictObject({ sessionId: id });
export const sessionJoinSchema = z.strictObject({
  sessionId: id,
  /** Last sequence number this client applied; omitted on a fresh load. */
  lastSeq: z.number().int().nonnegative().optional(),
});
/** Turns a join's snapshot holds (the newest ones), and an older page by default: enough to fill a tall screen. */
export const TURN_PAGE_SIZE = 30;
/** The most turns one `session:older` may ask for. */
export const MAX_TURN_PAGE = 100;
/** The page of turns just before `before` (the oldest turn the client holds), oldest first. */
export const sessionOlderSchema = z.strictObject({
  sessionId: id,
  before: id,
  limit: z.number().int().min(1).max(MAX_TURN_PAGE).optional(),
});
export const turnSendSchema = z.strictObject({
  sessionId: id,
  text: visibleText(MAX_PROMPT_CHARS, `must be at most ${MAX_PROMPT_CHARS} characters`),
  /** The model the sender's picker shows (a model key); set on the chat when it differs. */
  model: modelKeySchema.optional(),
  /** Attachment ids of this chat the prompt names (each once); the turn records them. */
  attachments: z
    .array(id)
    .max(MAX_PROMPT_ATTACHMENTS, `must name at most ${MAX_PROMPT_ATTACHMENTS} attachments`)
    .refine((ids) => new Set(ids).size === ids.length, "must name each attachment once")
    .optional(),
  /** What this turn may spend, instead of the server's default (TURN_BUDGET_TOKENS, TURN_BUDGET_USD). */
  budget: budgetSchema.optional(),
});
/** A chat's settings, or (no `sessionId`) those a new chat would start with. */
export const chatSettingsQuerySchema = z.strictObject({ sessionId: id.optional() });
export type ChatSettingsQuery = z.infer<typeof chatSettingsQuerySchema>;
export const turnCancelSchema = z.strictObject({ sessionId: id, turnId: id });
/** A new turn beside `turnId` with an edited prompt; the old turn stays on its branch. */
export const turnEditSchema = z.strictObject({
  sessionId: id,
  turnId: id,
  text: visibleText(MAX_PROMPT_CHARS, `must be at most ${MAX_PROMPT_CHARS} characters`),
  model: modelKeySchema.optional(),
});
/** A new turn beside `turnId` with the same prompt. */
export const turnRegenerateSchema = z.strictObject({ sessionId: id, turnId: id, model: modelKeySchema.optional() });
/** `session:branch` shows the branch holding `turnId`; `session:fork` copies the turns up to it into a new chat. */
export const turnRefSchema = z.strictObject({ sessionId: id, turnId: id });
export type TurnEdit = z.infer<typeof turnEditSchema>;
export type TurnRegenerate = z.infer<typeof turnRegenerateSchema>;
export type TurnRef = z.infer<typeof turnRefSchema>;
export const subagentSteerSchema = z.strictObject({
  sessionId: id,
  runId: id,
  message: visibleText(MAX_STEER_CHARS),
});
export const subagentKillSchema = z.strictObject({ sessionId: id, runId: id });
/** Model call ids are the model's own: printable, short, but not always id-shaped (`functions.x:0`). */
const callId = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[\x21-\x7e]+$/, "must be a call id");
/** A person's decision on a tool call waiting for approval; `runId` (null = the master's call) disambiguates call ids. */
export const toolDecideSchema = z.strictObject({
  sessionId: id,
  callId,
  runId: id.nullable().optional(),
  decision: z.enum(["approve", "deny"]),
  reason: visibleText(MAX_DENY_REASON_CHARS).optional(),
});
/**
 * A person's answer to a question a tool call asks (`runId` as for a decision): the form's
 * fields to accept, or a decline. The fields are checked against the call's form by the
 * turn that asked (lib/agent/input-form.ts); here only their shape and size.
 */
export const toolAnswerSchema = z
  .strictObject({
    sessionId: id,
    callId,
    runId: id.nullable().optional(),
    action: z.enum(["accept", "decline"]),
    content: inputContentSchema.optional(),
  })
  .refine((a) => a.action === "decline" || a.content !== undefined, { message: "an accepted answer needs its content", path: ["content"] })
  .refine((a) => a.action === "accept" || a.content === undefined, { message: "a decline carries no content", path: ["content"] });
/** Retry a failed, killed or timed-out run; `task`, when given, replaces the run's task. */
export const subagentRetrySchema = z.strictObject({
  sessionId: id,
  runId: id,
  task: visibleText(MAX_PROMPT_CHARS, `must be at most ${MAX_PROMPT_CHARS} characters`).optional(),
});

export type EmptyInput = z.infer<typeof emptySchema>;
export type SessionCreate = z.infer<typeof sessionCreateSchema>;
export type SessionRename = z.infer<typeof sessionRenameSchema>;
export type SessionRef = z.infer<typeof sessionRefSchema>;
export type SessionJoin = z.infer<typeof sessionJoinSchema>;
export type SessionOlder = z.infer<typeof sessionOlderSchema>;
export type TurnSend = z.infer<typeof turnSendSchema>;
export type TurnCancel = z.infer<typeof turnCancelSchema>;
export type SubagentSteer = z.infer<typeof subagentSteerSchema>;
export type SubagentKill = z.infer<typeof subagentKillSchema>;
export type ToolDecide = z.infer<typeof toolDecideSchema>;
export type SubagentRetry = z.infer<typeof subagentRetrySchema>;
export type ToolAnswer = z.infer<typeof toolAnswerSchema>;

/**
 * What a person does to a running turn, as it travels from the socket handler through
 * the session service (and, in a cluster, to the process that runs the turn) to the chat
 * session that acts on it: one union, dispatched once (DroneSession.command).
 */
export type RunCommand =
  | { kind: "cancel"; turnId: string }
  | { kind: "steer"; runId: string; message: string }
  | { kind: "kill"; runId: string }
  /** `runId` null: the master's call; absent: whichever run's call has that id. `by`: who decided. */
  | { kind: "decide"; callId: string; runId?: string | null; approve: boolean; reason?: string; by: string }
  /** An answer to a call's question, as for `decide`; `content` only with `accept`. */
  | { kind: "answer"; callId: string; runId?: string | null; action: "accept" | "decline"; content?: InputContent; by: string }
  | { kind: "retry"; runId: string; task?: string };
