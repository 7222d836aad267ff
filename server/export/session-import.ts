import { AppError, MAX_IMPORT_TOOL_CALLS, MAX_TOOL_CALLS_PER_STEP, wellFormedDeep, type Issue } from "@/lib/contracts";
import { jsonDepthWithin, MAX_JSON_DEPTH, reidentify, sessionFileSchema, type SessionFile } from "@/lib/export/session-file";
import { applyEvent, newTurn, turnFromStart } from "@/lib/turn/reduce";
import { deepEqual } from "@/lib/turn/deep-equal";
import { eventsOfTurn } from "@/lib/turn/turn-events";
import { newId } from "@/server/data/ids";
import { bsonSize, sizeLabel, STORABLE_DOCUMENT_BYTES } from "@/server/data/document-size";
import { fitModelCall } from "@/server/data/model-call-fit";
import type { ChatStore } from "@/server/data/store";
import { attachmentProblem, remapTurnAttachments } from "@/lib/export/session-attachments";
import { importAttachments } from "@/server/attachments/attachment-transfer";
import type { AttachmentRef, ChatTurn, SessionSummary, Step } from "@/lib/contracts";

/**
 * Reads a session file (see lib/export/session-file.ts) into a new chat of `ownerId`:
 * checked whole before anything is written (size, depth, schema, and that each turn is
 * one the turn reducer could have produced, and that each part fits in one database
 * document), then written through the same event writer
 * live turns use, with new ids. If a write fails half way the new chat is removed again:
 * an import creates the whole chat or nothing.
 */

/**
 * Events replayed (and, on import, recorded) between two turns of the event loop: a file
 * of tens of thousands of calls is checked and written in slices, so other people's
 * requests are answered meanwhile, and the writer's queue stays far below its bound.
 */
const EVENTS_PER_SLICE = 2_000;
const nextTick = () => new Promise<void>((resolve) => setImmediate(resolve));

export async function parseSessionFile(text: string): Promise<SessionFile> {
  if (!jsonDepthWithin(text, MAX_JSON_DEPTH))
    throw new AppError("bad_request", `The file nests deeper than ${MAX_JSON_DEPTH} levels; it is not a Delegate session file.`);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new AppError("bad_request", `The file is not valid JSON (${error instanceof Error ? error.message : String(error)}).`);
  }
  // A file's text enters here as a live agent's does (see wellFormed): checked and stored normalised.
  const parsed = sessionFileSchema.safeParse(wellFormedDeep(json));
  if (!parsed.success) {
    const issues: Issue[] = parsed.error.issues.slice(0, 20).map((i) => ({ path: i.path.join("."), message: i.message }));
    const first = issues[0]!;
    throw new AppError(
      "bad_request",
      `The file is not a valid Delegate session file: ${first.path ? `${first.path}: ` : ""}${first.message}`,
      issues,
    );
  }
  const file = parsed.data;
  const attachmentTrouble = attachmentProblem(file.attachments ?? [], file.turns);
  if (attachmentTrouble) throw new AppError("bad_request", attachmentTrouble);
  const calls = file.turns.reduce((sum, entry) => sum + callsIn(entry.turn.steps), 0);
  if (calls > MAX_IMPORT_TOOL_CALLS)
    throw new AppError(
      "bad_request",
      `The file holds ${calls} tool calls; an import takes at most ${MAX_IMPORT_TOOL_CALLS}. Split the chat, or export fewer turns.`,
    );
  for (const [i, entry] of file.turns.entries()) {
    if (entry.turn.status === "running")
      throw new AppError("bad_request", `Turn ${i + 1} in the file is still running; only finished turns can be imported.`);
    const crowded = crowdedStep(entry.turn.steps);
    if (crowded)
      throw new AppError(
        "bad_request",
        `Turn ${i + 1}, step ${crowded.step + 1}${crowded.runId ? ` of subagent run ${crowded.runId}` : ""} in the file holds ${crowded.calls} tool calls; a step may hold at most ${MAX_TOOL_CALLS_PER_STEP}.`,
      );
    // The turn must be what its own events fold into; a hand-edited tree that is not (a run
    // under the wrong parent, a call twice) would be stored differently from how it shows.
    const events = eventsOfTurn(entry.turn);
    // Opened by its own start event, which carries what a start sets (its model, parent, attachments).
    const start = events[0];
    let folded =
      start?.type === "turn:started"
        ? turnFromStart(start, entry.turn.sessionId)
        : newTurn({
            sessionId: entry.turn.sessionId,
            turnId: entry.turn.turnId,
            prompt: entry.turn.prompt,
            createdAt: entry.turn.createdAt,
          });
    for (let start = 1; start < events.length; start += EVENTS_PER_SLICE) {
      folded = events.slice(start, start + EVENTS_PER_SLICE).reduce(applyEvent, folded);
      await nextTick();
    }
    if (!deepEqual(folded, entry.turn))
      throw new AppError("bad_request", `Turn ${i + 1} in the file is not consistent (its subagents, calls or ids do not fit together).`);
    const tooLarge = oversizedPart(entry);
    if (tooLarge)
      throw new AppError(
        "bad_request",
        `Turn ${i + 1} in the file has ${tooLarge.part} of ${sizeLabel(tooLarge.bytes)}, more than the database stores in one document; nothing was imported.`,
      );
    await nextTick();
  }
  return file;
}

/**
 * The first part of a turn that would not fit in its database document, as the event
 * writer and the model-call log store it: the turn's and each run's own fields (their
 * long texts go to chunks beside them), each tool call's arguments, each model-call
 * record (which the log would otherwise store cut). Tool outputs are stored in chunks
 * and always fit.
 */
function oversizedPart(entry: SessionFile["turns"][number]): { part: string; bytes: number } | undefined {
  const over = (value: object) => {
    const bytes = bsonSize(value);
    return bytes > STORABLE_DOCUMENT_BYTES ? bytes : 0;
  };
  const { turn } = entry;
  let found: { part: string; bytes: number } | undefined;
  const check = (part: string, value: object) => {
    const bytes = found ? 0 : over(value);
    if (bytes) found = { part, bytes };
  };
  check("a prompt", { prompt: turn.prompt, error: turn.error });
  const walk = (steps: readonly Step[]) => {
    for (const step of steps)
      for (const call of step.toolCalls) {
        check(`a "${call.name}" tool call`, { parameters: call.parameters, response: call.response });
        if (call.subagent) {
          const { prompt, task, response } = call.subagent;
          check(`a subagent ("${call.subagent.name}")`, { prompt, task, response });
          walk(call.subagent.steps);
        }
      }
  };
  walk(turn.steps);
  entry.modelCalls.forEach((record, i) => {
    if (found) return;
    const fitted = fitModelCall(record, turn.sessionId);
    if (!fitted || fitted.cut.length > 0)
      found = { part: `model request ${i + 1} (${fitted?.cut[0] ?? "its messages"})`, bytes: bsonSize(record) };
  });
  return found;
}

/** Every tool call of these steps, the subagents' included. */
function callsIn(steps: readonly Step[]): number {
  let count = 0;
  for (const step of steps) for (const call of step.toolCalls) count += 1 + (call.subagent ? callsIn(call.subagent.steps) : 0);
  return count;
}

/** The first step, the master's or a subagent's, that holds more calls than a step may. */
function crowdedStep(steps: Step[], runId?: string): { step: number; runId?: string; calls: number } | undefined {
  for (const [s, step] of steps.entries()) {
    if (step.toolCalls.length > MAX_TOOL_CALLS_PER_STEP) return { step: s, ...(runId ? { runId } : {}), calls: step.toolCalls.length };
    for (const call of step.toolCalls) {
      const found = call.subagent && crowdedStep(call.subagent.steps, call.subagent.runId);
      if (found) return found;
    }
  }
  return undefined;
}

export async function importSessionFile(
  store: ChatStore,
  ownerId: string,
  file: SessionFile,
  create: (title: string) => Promise<SessionSummary>,
  /** Where the new chat's attachments come from: by default the file's own, stored as uploads are. */
  attach: (to: { sessionId: string; ownerId: string }) => Promise<Map<string, AttachmentRef>> = (to) =>
    importAttachments(store.attachments, to, file.attachments ?? []),
): Promise<SessionSummary> {
  const session = await create(file.session.title || "Imported chat");
  try {
    const turns: ChatTurn[] = [];
    const writer = store.eventWriter({ sessionId: session.sessionId });
    const calls = store.modelCallLog({ sessionId: session.sessionId });
    const attached = await attach({ sessionId: session.sessionId, ownerId });
    for (const original of file.turns) {
      const entry = reidentify(original, session.sessionId, newId);
      entry.turn = remapTurnAttachments(entry.turn, attached);
      turns.push(entry.turn);
      const full = new Map(entry.toolOutputs.map((o) => [`${o.runId ?? ""}|${o.callId}`, o.text]));
      let recorded = 0;
      for (const event of eventsOfTurn(entry.turn, (runId, callId) => full.get(`${runId ?? ""}|${callId}`))) {
        writer.record(event, entry.turn);
        if (++recorded % EVENTS_PER_SLICE === 0) {
          await writer.drain();
          // The drain's last reply resumes this loop straight away; requests waiting meanwhile go first.
          await nextTick();
        }
      }
      for (const record of entry.modelCalls) calls.write(record);
    }
    await Promise.all([writer.drain(turns), calls.drain()]);
    // The writers log what the database refused rather than throwing: check that nothing was, and that every turn landed.
    if (writer.givenUp > 0 || calls.givenUp > 0)
      throw new AppError(
        "bad_request",
        `The database refused part of the file (${writer.givenUp} event write(s), ${calls.givenUp} model request(s)); nothing was imported.`,
      );
    // Counted, not read back: reading twenty thousand calls back and assembling them was one
    // long block of the server's thread. What was written is these turns, each as its events fold.
    const stored = await store.countTurns(session.sessionId);
    if (stored !== file.turns.length) throw new Error(`${stored} of ${file.turns.length} turns were stored`);
    await store.indexTurns(session.sessionId, turns);
    const { model, instructions } = file.session;
    if (model || instructions)
      await store.setChatSettings(ownerId, session.sessionId, { ...(model ? { model } : {}), ...(instructions ? { instructions } : {}) });
    return session;
  } catch (error) {
    await store.deleteSession(ownerId, session.sessionId).catch(() => undefined);
    throw error instanceof AppError ? error : new AppError("unavailable", "The chat could not be stored; nothing was imported. Try again.");
  }
}
