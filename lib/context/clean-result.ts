import { z } from "zod";
import type { Logger } from "@/lib/log";

/**
 * The clean-context filter (docs/architecture.md, "The clean-context rule"), shared by
 * the live path and the historical replay.
 *
 * A subagent's internals (thinking, nested tool calls, stats) must never reach a model
 * request. The runtime hands the parent a plain narrative text, but older records, other
 * producers or a future internal format may still carry a JSON envelope
 * `{ success, data: { prompt, thinking, response, toolCalls, stats } }`. Whatever arrives,
 * only `data.response` may pass.
 */

/** What the clean-context filter needs of a logger: a warning when a stored result cannot be read. */
export type WarnLog = Pick<Logger, "warn">;

const envelopeSchema = z
  .object({
    success: z.boolean().optional(),
    data: z.object({ response: z.string() }).loose().optional(),
    error: z.string().optional(),
  })
  .loose();

/** Keys that only appear in a subagent envelope; a text mentioning them is not prose. */
const ENVELOPE_HINT = /^\s*\{[\s\S]*"(success|data|toolCalls|thinking|stats)"/;

export function looksLikeEnvelope(text: string): boolean {
  return ENVELOPE_HINT.test(text);
}

export type EnvelopeParse = { kind: "plain" } | { kind: "envelope"; response: string } | { kind: "unparsable" } | { kind: "broken" };

/**
 * Classifies a stored or live subagent result: plain text; an envelope (its clean part
 * extracted); text that starts like JSON but does not parse ("unparsable", harmless prose);
 * or something envelope-shaped whose clean part cannot be extracted ("broken").
 */
export function parseEnvelope(text: string): EnvelopeParse {
  if (!text.trimStart().startsWith("{")) return { kind: "plain" };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return looksLikeEnvelope(text) ? { kind: "broken" } : { kind: "unparsable" };
  }
  const parsed = envelopeSchema.safeParse(json);
  if (parsed.success && parsed.data.data) return { kind: "envelope", response: parsed.data.data.response };
  if (parsed.success && parsed.data.success === false && parsed.data.error !== undefined) {
    return { kind: "envelope", response: `Subagent failed: ${parsed.data.error}` };
  }
  return looksLikeEnvelope(text) ? { kind: "broken" } : { kind: "plain" };
}

/** Said to the model in place of a result that could only be shown by leaking internals. */
export const UNREADABLE_RESULT =
  "[Subagent result unavailable: the stored result could not be read without exposing the subagent's internal work.]";

/**
 * The text a parent model may read for a subagent result (live path). Plain text passes
 * unchanged; an envelope yields `data.response`; an envelope that does not parse would leak
 * internals if passed raw, so it is replaced (and a warning logged); "fall back to the raw
 * text" holds only for text that is not an envelope at all.
 */
export function cleanSubagentContent(raw: string, log?: WarnLog): string {
  const parsed = parseEnvelope(raw);
  if (parsed.kind === "plain") return raw;
  if (parsed.kind === "envelope") return parsed.response;
  if (parsed.kind === "unparsable") {
    log?.warn("failed to parse subagent result for context; using the raw text", { resultLength: raw.length });
    return raw;
  }
  log?.warn("failed to parse subagent result for context", { resultLength: raw.length });
  return UNREADABLE_RESULT;
}
