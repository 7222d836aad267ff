import { z } from "zod";

/**
 * A question a tool call asks a person while it runs (an MCP server's elicitation, or any
 * tool through `ToolContext.askInput`): a message and a small form. The form is a subset
 * of JSON Schema on purpose: an object of flat fields, each a string (optionally one of a
 * list, or an email, a URI, a date), a number or integer (optionally bounded) or a
 * boolean. Anything else is refused where the form is asked (lib/agent/input-form.ts), so
 * every form that reaches a person can be drawn as plain inputs and checked on the server.
 */

export const MAX_INPUT_MESSAGE_CHARS = 4_000;
export const MAX_INPUT_FIELDS = 30;
/** The longest text a person may type into one field (the socket refuses more). */
export const MAX_INPUT_VALUE_CHARS = 10_000;
export const MAX_INPUT_ENUM_VALUES = 100;
const MAX_LABEL_CHARS = 200;
const MAX_DESCRIPTION_CHARS = 1_000;

export const INPUT_FORMATS = ["email", "uri", "date"] as const;

const RESERVED_NAMES = new Set(["__proto__", "constructor", "prototype"]);

/** A field's name, as the answer's key: short and printable, so it reads as a label too. */
export const inputFieldNameSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_.-]+$/, "must be letters, digits, '_', '.' or '-'")
  // An object key that is an object's own machinery would not come back as a field.
  .refine((name) => !RESERVED_NAMES.has(name), "must not be __proto__, constructor or prototype");

const label = z.string().max(MAX_LABEL_CHARS).optional();
const description = z.string().max(MAX_DESCRIPTION_CHARS).optional();
const length = z.number().int().nonnegative().max(MAX_INPUT_VALUE_CHARS).optional();

export const inputStringFieldSchema = z.strictObject({
  type: z.literal("string"),
  title: label,
  description,
  enum: z.array(z.string().max(MAX_LABEL_CHARS)).min(1).max(MAX_INPUT_ENUM_VALUES).optional(),
  /** Labels for `enum`'s values, in the same order. */
  enumNames: z.array(z.string().max(MAX_LABEL_CHARS)).max(MAX_INPUT_ENUM_VALUES).optional(),
  format: z.enum(INPUT_FORMATS).optional(),
  minLength: length,
  maxLength: length,
  default: z.string().max(MAX_INPUT_VALUE_CHARS).optional(),
});

export const inputNumberFieldSchema = z.strictObject({
  type: z.enum(["number", "integer"]),
  title: label,
  description,
  minimum: z.number().finite().optional(),
  maximum: z.number().finite().optional(),
  default: z.number().finite().optional(),
});

export const inputBooleanFieldSchema = z.strictObject({
  type: z.literal("boolean"),
  title: label,
  description,
  default: z.boolean().optional(),
});

export const inputFieldSchema = z.discriminatedUnion("type", [inputStringFieldSchema, inputNumberFieldSchema, inputBooleanFieldSchema]);
export type InputField = z.infer<typeof inputFieldSchema>;

export const inputFormSchema = z.strictObject({
  type: z.literal("object"),
  properties: z
    .record(inputFieldNameSchema, inputFieldSchema)
    .refine((p) => Object.keys(p).length <= MAX_INPUT_FIELDS, `must have at most ${MAX_INPUT_FIELDS} fields`),
  required: z.array(inputFieldNameSchema).max(MAX_INPUT_FIELDS).optional(),
});
export type InputForm = z.infer<typeof inputFormSchema>;

/** One answer's value: what the form's fields hold. */
export const inputValueSchema = z.union([z.string().max(MAX_INPUT_VALUE_CHARS), z.number().finite(), z.boolean()]);
export type InputValue = z.infer<typeof inputValueSchema>;
export const inputContentSchema = z
  .unknown()
  // Checked before the record is built: a parsed `__proto__` key would vanish from it, not fail.
  .refine((c) => !(c !== null && typeof c === "object" && Object.hasOwn(c, "__proto__")), "must not have a field named __proto__")
  .pipe(
    z
      .record(inputFieldNameSchema, inputValueSchema)
      .refine((c) => Object.keys(c).length <= MAX_INPUT_FIELDS, `must have at most ${MAX_INPUT_FIELDS} fields`),
  );
export type InputContent = z.infer<typeof inputContentSchema>;

/**
 * How a question ended for the tool that asked: answered (`accept`, with the fields), or
 * refused (`decline`), or never answered (`cancel`: the run stopped or no one answered in
 * APPROVAL_TIMEOUT_MS).
 */
export type InputAnswer = { action: "accept"; content: InputContent } | { action: "decline" } | { action: "cancel" };

/**
 * A question on a tool call, as the turn keeps it. `pending` while the call waits;
 * `accepted` (with `content`) and `declined` are a person's answers; `expired` and
 * `cancelled` end it unanswered, and `note` says why.
 */
export const INPUT_STATES = ["pending", "accepted", "declined", "expired", "cancelled"] as const;
export const inputStateSchema = z.enum(INPUT_STATES);
export type InputState = z.infer<typeof inputStateSchema>;

export const inputRequestSchema = z.object({
  state: inputStateSchema,
  requestedAt: z.string(),
  message: z.string(),
  form: inputFormSchema,
  answeredAt: z.string().optional(),
  /** The identity id of the person who answered. */
  answeredBy: z.string().optional(),
  content: inputContentSchema.optional(),
  /** Why it ended without an answer (expired, cancelled, restart). */
  note: z.string().optional(),
});
export type InputRequest = z.infer<typeof inputRequestSchema>;
