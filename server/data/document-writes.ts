import type { Step } from "@/lib/contracts";
import { emptyStoredTexts, planAppends, safeEnd, type StoredTexts, type TextChunkWrite } from "./text-appends";

/**
 * Pure planning of one write of a turn or run document: what its texts gained since the
 * last write (text-appends.ts), those of its other fields that changed, and its answer,
 * with what the document will hold once the write has landed. The event store sends it.
 */

/** Longest text kept inside its turn or run document (a UTF-16 million is at most 3 MB of UTF-8). */
const INLINE_TEXT_CHARS = 1_000_000;
/** Characters per TextChunk document: far below the 16 MB message limit. */
const TEXT_CHUNK_CHARS = 1_000_000;

/** One turn or run document as this writer last stored it (it is the only writer while the turn runs). */
export interface DocState {
  kind: "turn" | "run";
  turnId: string;
  runId: string | null;
  /** The document's `appendSeq`: an append names the value it expects, so a retried one that landed matches nothing. */
  appendSeq: number;
  texts: StoredTexts;
  /** The texts as last planned, to tell an append from a rewrite (a replaced process). */
  heldSteps: readonly { text: string; thinking: string }[];
  /** JSON of each other field as last written, so an unchanged field is not sent again. */
  fields: Map<string, string>;
  response?: string;
  /** Text streamed since its last append was queued, and for how many flushes it has waited. */
  pendingChars: number;
  waitedFlushes: number;
}

export function newDoc(kind: DocState["kind"], turnId: string, runId: string | null): DocState {
  return {
    kind,
    turnId,
    runId,
    appendSeq: 0,
    texts: emptyStoredTexts(),
    heldSteps: [],
    fields: new Map(),
    pendingChars: 0,
    waitedFlushes: 0,
  };
}

/** What a write brings its document to: the agent's steps as folded, its other fields, and (a run's) answer. */
export interface DocContent {
  steps: readonly Step[];
  fields: Record<string, unknown>;
  response?: string;
}

export interface DocumentWrite {
  /** The document's update; its filter names `expectedSeq`, so a retry of an update that did land matches nothing. */
  update: Record<string, unknown>;
  expectedSeq: number;
  /** Text stored beside the document, written before it: a document never names text it does not have. */
  chunks: TextChunkWrite[];
  /** Set when the texts held were replaced rather than extended: their chunks, deleted before the update rewrites the texts whole. */
  replacedTextIds?: string[];
  /** Records the write as landed in the document's state. */
  commit(): void;
}

/** The write that brings `doc` to `content` (`final`: the document's last), or undefined when it holds that already. */
export function planDocumentWrite(doc: DocState, content: DocContent, final: boolean): DocumentWrite | undefined {
  const rewrite = !extendsHeld(doc.heldSteps, content.steps, final);
  const from = rewrite ? emptyStoredTexts() : doc.texts;
  const textId = (i: number, field: string) => stepTextId(doc.turnId, doc.runId, `${i}:${field}`);
  const plan = planAppends(from, content.steps, { textId, inlineBudget: INLINE_TEXT_CHARS, chunkChars: TEXT_CHUNK_CHARS, final });
  const set: Record<string, unknown> = { ...plan?.set };
  const chunks = plan?.chunks.slice() ?? [];
  let inline = plan?.next.inline ?? from.inline;
  if (rewrite) {
    set.steps = content.steps.map((_, i) => plan?.set[`steps.${i}`]);
    for (const key of Object.keys(plan?.set ?? {})) delete set[key];
  }
  const fields = new Map<string, string>();
  for (const [key, value] of Object.entries(content.fields)) {
    const json = JSON.stringify(value);
    if (doc.fields.get(key) === json) continue;
    fields.set(key, json);
    set[key] = value;
  }
  let response = doc.response;
  if (content.response !== undefined && content.response !== doc.response) {
    response = content.response;
    if (content.response.length <= INLINE_TEXT_CHARS - inline) {
      set.response = content.response;
      inline += content.response.length;
    } else {
      set.response = "";
      const pieces = responseChunks(stepTextId(doc.turnId, doc.runId, "response"), content.response);
      chunks.push(...pieces);
      set.responseChunks = pieces.length;
    }
  }
  const update: Record<string, unknown> = { $inc: { appendSeq: 1, ...(rewrite ? {} : plan?.inc) } };
  if (Object.keys(set).length > 0) update.$set = set;
  if (!rewrite && plan && Object.keys(plan.push).length > 0) update.$push = plan.push;
  if (!plan && !rewrite && update.$set === undefined) return undefined;
  const expectedSeq = doc.appendSeq;
  const next: StoredTexts = plan?.next ?? from;
  return {
    update,
    expectedSeq,
    chunks,
    ...(rewrite ? { replacedTextIds: doc.heldSteps.flatMap((_, i) => [textId(i, "text"), textId(i, "thinking")]) } : {}),
    commit: () => {
      doc.appendSeq = expectedSeq + 1;
      doc.texts = { steps: next.steps, inline };
      doc.heldSteps = content.steps;
      for (const [key, json] of fields) doc.fields.set(key, json);
      doc.response = response;
    },
  };
}

/** Names one long text of a turn: the master's (`m`) or a run's step text, reasoning or response. */
export function stepTextId(turnId: string, runId: string | null, part: string): string {
  return `${turnId}:${runId ?? "m"}:${part}`;
}

/** An answer too long for its document, in chunks that never split a surrogate pair. */
function responseChunks(textId: string, text: string): TextChunkWrite[] {
  const chunks: TextChunkWrite[] = [];
  for (let at = 0; at < text.length;) {
    const end = at + TEXT_CHUNK_CHARS >= text.length ? text.length : safeEnd(text, at + TEXT_CHUNK_CHARS);
    chunks.push({ textId, offset: at, data: text.slice(at, end) });
    at = end;
  }
  return chunks;
}

/**
 * Whether `steps` only add to what was held: texts grow at their end, steps are added
 * after. While a run streams the fold only appends (by offset), so lengths say it; the
 * last write compares text, in case the fold ever replaced a text rather than extended it.
 */
function extendsHeld(
  held: readonly { text: string; thinking: string }[],
  steps: readonly { text: string; thinking: string }[],
  compareText: boolean,
): boolean {
  if (steps.length < held.length) return false;
  for (let i = 0; i < held.length; i++) {
    const before = held[i]!;
    const now = steps[i]!;
    if (before === now) continue;
    if (!grows(before.text, now.text, compareText) || !grows(before.thinking, now.thinking, compareText)) return false;
  }
  return true;
}

function grows(before: string, now: string, compareText: boolean): boolean {
  if (before === now) return true;
  return now.length >= before.length && (!compareText || now.startsWith(before));
}
