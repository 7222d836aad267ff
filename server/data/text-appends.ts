/**
 * Pure planning of the event store's append-only text writes. A turn or run document
 * holds its steps' texts as they streamed: the first piece in `text`, later pieces pushed
 * onto `textParts`, and, once the document's inline budget is spent, the rest in
 * `TextChunk` documents keyed by character offset. Each write carries only what the
 * document does not hold yet, so the bytes sent grow with the text, not its square.
 *
 * A stored text reads back as `text + textParts.join("") + chunks` (server/data/assemble-turn.ts);
 * records written before this scheme have "" inline when chunked, which reads the same.
 */

export type TextField = "text" | "thinking";

/** How much of each step's text and reasoning a document holds already. */
export interface StoredTexts {
  steps: { text: number; thinking: number; textChunked: boolean; thinkingChunked: boolean }[];
  /** Characters held inside the document (the rest are in TextChunks). */
  inline: number;
}

export interface TextChunkWrite {
  textId: string;
  /** Character offset of `data` in its text (the chunk's `n`, so chunks sort by it). */
  offset: number;
  data: string;
}

export interface AppendPlan {
  /** `steps.<i>` → a new step; new steps only, set at their index. */
  set: Record<string, { text: string; thinking: string; textChunks?: number; thinkingChunks?: number }>;
  /** `steps.<i>.textParts` → the piece to append. */
  push: Record<string, string>;
  /** `steps.<i>.textChunks` → chunks added. */
  inc: Record<string, number>;
  chunks: TextChunkWrite[];
  /** What the document holds once the plan has landed. */
  next: StoredTexts;
}

export interface PlanOptions {
  /** Names a text for its chunks (see `stepTextId`). */
  textId: (step: number, field: TextField) => string;
  /** Most characters a document holds inline over all its texts. */
  inlineBudget: number;
  /** Most characters per chunk document. */
  chunkChars: number;
  /**
   * The last write of these texts. Before it, a trailing high surrogate is held back: the
   * rest of its pair has not streamed yet, and a lone half cannot be stored as UTF-8.
   */
  final: boolean;
}

export const emptyStoredTexts = (): StoredTexts => ({ steps: [], inline: 0 });

/**
 * What to send so the document holds `steps` (texts only ever grow at their end; the
 * caller checks that before asking). Returns undefined when it holds them already.
 */
export function planAppends(
  stored: StoredTexts,
  steps: readonly { text: string; thinking: string }[],
  options: PlanOptions,
): AppendPlan | undefined {
  const plan: AppendPlan = { set: {}, push: {}, inc: {}, chunks: [], next: { steps: stored.steps.slice(), inline: stored.inline } };
  let changed = steps.length > stored.steps.length;
  for (let i = 0; i < steps.length; i++) {
    const isNew = i >= stored.steps.length;
    const held = stored.steps[i] ?? { text: 0, thinking: 0, textChunked: false, thinkingChunked: false };
    const after = { ...held };
    const fresh = { text: "", thinking: "" } as AppendPlan["set"][string];
    for (const field of ["text", "thinking"] as const) {
      const value = steps[i]![field];
      const from = held[field];
      const to = options.final ? value.length : safeEnd(value, value.length);
      if (to <= from) continue;
      changed = true;
      const delta = value.slice(from, to);
      const chunkedKey = field === "text" ? "textChunked" : "thinkingChunked";
      // Once a text has spilled into chunks, the rest of it follows there, in order.
      const room = held[chunkedKey] ? 0 : Math.max(0, options.inlineBudget - plan.next.inline);
      const inlineEnd = room >= delta.length ? delta.length : safeEnd(delta, room);
      const inline = delta.slice(0, inlineEnd);
      plan.next.inline += inline.length;
      if (isNew) fresh[field] = inline;
      else if (inline) plan.push[`steps.${i}.${field}Parts`] = inline;
      let chunks = 0;
      for (let at = inlineEnd; at < delta.length;) {
        const end = at + options.chunkChars >= delta.length ? delta.length : safeEnd(delta, at + options.chunkChars);
        plan.chunks.push({ textId: options.textId(i, field), offset: from + at, data: delta.slice(at, end) });
        chunks++;
        at = end;
      }
      if (chunks > 0) {
        after[chunkedKey] = true;
        if (isNew) fresh[field === "text" ? "textChunks" : "thinkingChunks"] = chunks;
        else plan.inc[`steps.${i}.${field}Chunks`] = chunks;
      }
      after[field] = to;
    }
    if (isNew) plan.set[`steps.${i}`] = fresh;
    plan.next.steps[i] = after;
  }
  return changed ? plan : undefined;
}

/** `end`, or one less when that would cut a surrogate pair in two. */
export function safeEnd(value: string, end: number): number {
  if (end <= 0) return 0;
  const code = value.charCodeAt(end - 1);
  return code >= 0xd800 && code <= 0xdbff ? end - 1 : end;
}
