import { z } from "zod";
import { chatTurnSchema, MAX_INSTRUCTIONS_CHARS, modelCallRecordSchema, type ChatTurn, type ModelCallRecord } from "@/lib/contracts";
import { exportedAttachmentsSchema, type ExportedAttachment } from "./session-attachments";

/**
 * The session file: one chat exported whole, for an archive, an audit or another
 * Delegate instance. Versioned; everything in it is validated on import. It holds each
 * finished turn with every subagent's full process, the whole text of every tool output
 * longer than its preview, and the model-call records (each request exactly as sent).
 *
 * It is written one turn at a time (see `sessionFileChunks`), so a large chat is never
 * held twice in memory as text.
 */

export const SESSION_FILE_FORMAT = "delegate.session";
/**
 * 2: each turn may name the model its master ran on (`turn.model`), and the chat its
 * settings (`session.model`, a model key; `session.instructions`). Version 1 files, which
 * have neither, are read as they are.
 */
export const SESSION_FILE_VERSION = 2;
export const READABLE_SESSION_FILE_VERSIONS = [1, 2] as const;
/** Deeper JSON than this is refused before parsing (a turn tree is at most ~60 levels deep). */
export const MAX_JSON_DEPTH = 256;

export const toolOutputEntrySchema = z.object({ runId: z.string().nullable(), callId: z.string(), text: z.string() });
export type ToolOutputEntry = z.infer<typeof toolOutputEntrySchema>;

export const exportedTurnSchema = z.object({
  turn: chatTurnSchema,
  toolOutputs: z.array(toolOutputEntrySchema),
  modelCalls: z.array(modelCallRecordSchema),
});
export type ExportedTurn = z.infer<typeof exportedTurnSchema>;

export const sessionFileSchema = z.object({
  format: z.literal(SESSION_FILE_FORMAT, { error: `Not a Delegate session file (its "format" is not "${SESSION_FILE_FORMAT}").` }),
  version: z.union(
    READABLE_SESSION_FILE_VERSIONS.map((v) => z.literal(v)),
    { error: `This Delegate reads session files of versions ${READABLE_SESSION_FILE_VERSIONS.join(" and ")}.` },
  ),
  exportedAt: z.string(),
  session: z.object({
    title: z.string().max(500),
    createdAt: z.string(),
    /** The model key the chat ran on; where no endpoint offers it, the importing chat runs on its owner's default. */
    model: z.string().max(300).optional(),
    instructions: z.string().max(MAX_INSTRUCTIONS_CHARS).optional(),
    /**
     * Who did what: the name of each account the turns name (a prompt's `sentBy`, an
     * approval's `decidedBy`, a question's `answeredBy`). Absent in files from before
     * members, and when no turn names an account.
     */
    people: z
      .array(z.object({ id: z.string().max(64), name: z.string().max(320) }))
      .max(1_000)
      .optional(),
  }),
  turns: z.array(exportedTurnSchema).max(20_000),
  /** Version 2: the chat's attachments, bytes included (lib/export/session-attachments.ts). */
  attachments: exportedAttachmentsSchema.optional(),
});
export type SessionFile = z.infer<typeof sessionFileSchema>;
export type ExportedPerson = NonNullable<SessionFile["session"]["people"]>[number];

/** The file as text, piece by piece: the header, each turn, the end. Concatenated, it is one JSON document. */
export async function* sessionFileChunks(
  header: { title: string; createdAt: string; exportedAt: string; model?: string; instructions?: string; people?: ExportedPerson[] },
  turns: AsyncIterable<ExportedTurn>,
  attachments?: AsyncIterable<ExportedAttachment>,
): AsyncGenerator<string> {
  const head = {
    format: SESSION_FILE_FORMAT,
    version: SESSION_FILE_VERSION,
    exportedAt: header.exportedAt,
    session: {
      title: header.title,
      createdAt: header.createdAt,
      ...(header.model ? { model: header.model } : {}),
      ...(header.instructions ? { instructions: header.instructions } : {}),
      ...(header.people?.length ? { people: header.people } : {}),
    },
  };
  yield `${JSON.stringify(head).slice(0, -1)},"turns":[`;
  let first = true;
  for await (const turn of turns) {
    yield `${first ? "" : ","}\n${JSON.stringify(turn)}`;
    first = false;
  }
  if (attachments) yield* attachmentChunks(attachments);
  yield "\n]}\n";
}

/** Closes the turns and writes the attachments, one a piece (each holds a whole file as base64). */
async function* attachmentChunks(attachments: AsyncIterable<ExportedAttachment>): AsyncGenerator<string> {
  yield '\n],"attachments":[';
  let first = true;
  for await (const attachment of attachments) {
    yield `${first ? "" : ","}\n${JSON.stringify(attachment)}`;
    first = false;
  }
}

/**
 * Whether `text` nests arrays and objects at most `max` deep, scanned without parsing:
 * JSON.parse and the schema both recurse, and a hostile file of a million `[` would
 * exhaust the stack instead of getting a clear answer.
 */
export function jsonDepthWithin(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 /* [ */ || c === 123 /* { */) {
      if (++depth > max) return false;
    } else if (c === 93 /* ] */ || c === 125 /* } */) depth--;
  }
  return true;
}

/**
 * New ids for an imported turn, so a file imported twice (or into the instance it came
 * from) collides with nothing: the turn's id and every run's id, and every reference to
 * a run (parent, retry, model-call records). Tool call ids are scoped by turn and run, so
 * they stay as they are; so does all text.
 */
export function reidentify(entry: ExportedTurn, sessionId: string, newId: () => string): ExportedTurn {
  const turnId = newId();
  const runs = new Map<string, string>();
  const collect = (steps: ChatTurn["steps"]) => {
    for (const step of steps)
      for (const call of step.toolCalls)
        if (call.subagent) {
          runs.set(call.subagent.runId, newId());
          collect(call.subagent.steps);
        }
  };
  collect(entry.turn.steps);
  const run = (id: string) => runs.get(id) ?? id;
  const mapSteps = (steps: ChatTurn["steps"]): ChatTurn["steps"] =>
    steps.map((step) => ({
      ...step,
      toolCalls: step.toolCalls.map((call) => {
        if (!call.subagent) return call;
        const p = call.subagent;
        return {
          ...call,
          subagent: {
            ...p,
            runId: run(p.runId),
            parentRunId: p.parentRunId === null ? null : run(p.parentRunId),
            ...(p.retryOf !== undefined ? { retryOf: run(p.retryOf) } : {}),
            steps: mapSteps(p.steps),
          },
        };
      }),
    }));
  const modelCalls: ModelCallRecord[] = entry.modelCalls.map((c) => ({
    ...c,
    callId: newId(),
    turnId,
    runId: c.runId === null ? null : run(c.runId),
  }));
  // A file holds one branch, in order: each turn follows the one before it (a fork's turns too).
  const { parentTurnId: _branch, ...turn } = entry.turn;
  return {
    turn: { ...turn, turnId, sessionId, steps: mapSteps(entry.turn.steps) },
    toolOutputs: entry.toolOutputs.map((o) => ({ ...o, runId: o.runId === null ? null : run(o.runId) })),
    modelCalls,
  };
}
