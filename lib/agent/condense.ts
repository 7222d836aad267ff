import { z } from "zod";
import type { Usage } from "@/lib/contracts";
import { CHARS_PER_TOKEN, estimateTokens } from "@/lib/context/tokens";
import type { ChatModel } from "@/lib/model/types";
import { runModelStep } from "./model-step";

/**
 * Three-level result condensation, so a subagent's answer fits back into its
 * parent's context:
 *   1 passthrough — under `maxResultTokens`, unchanged;
 *   2 LLM condensation — the system model rewrites it as structured JSON (rendered here);
 *   3 head+tail truncation — when the model fails, is missing or overshoots: 60% head,
 *     40% tail, an omission marker between.
 * It never throws for model trouble: the parent always receives something.
 */

export type CondensationLevel = 1 | 2 | 3;

export const CONDENSE_SYSTEM_PROMPT =
  'You condense a subagent\'s result for the agent that asked for it. Reply with JSON only: {"summary": string, "conclusions": string[], "filePaths": string[], "actionItems": string[], "errors": string[], "keyData": string[]}. Keep facts, numbers, quotes and paths that matter; drop narration.';

export interface CondenseInput {
  text: string;
  maxResultTokens: number;
  model?: ChatModel;
  signal?: AbortSignal;
}

export interface Condensed {
  body: string;
  level: CondensationLevel;
  originalTokens: number;
  bodyTokens: number;
  /** System-model usage spent condensing. */
  usage: Usage;
}

const condensedSchema = z.object({
  summary: z.string(),
  conclusions: z.array(z.string()).default([]),
  filePaths: z.array(z.string()).default([]),
  actionItems: z.array(z.string()).default([]),
  errors: z.array(z.string()).default([]),
  keyData: z.array(z.string()).default([]),
});

const FENCE = /^\s*```(?:json)?\s*([\s\S]*?)\s*```\s*$/;

export async function condenseResult(input: CondenseInput): Promise<Condensed> {
  const originalTokens = estimateTokens(input.text);
  const usage: Usage = { inputTokens: 0, outputTokens: 0 };
  const done = (body: string, level: CondensationLevel): Condensed => ({
    body,
    level,
    originalTokens,
    bodyTokens: estimateTokens(body),
    usage,
  });
  if (originalTokens <= input.maxResultTokens) return done(input.text, 1);
  if (input.model) {
    try {
      const step = await runModelStep(input.model, {
        messages: [
          { role: "system", content: CONDENSE_SYSTEM_PROMPT },
          { role: "user", content: `Stay under ${input.maxResultTokens} tokens.\n\nResult to condense:\n${input.text}` },
        ],
        signal: input.signal,
        // A condensed result is text: tool calls in it are not run, so none are kept.
        maxToolCalls: 0,
      });
      usage.inputTokens += step.usage.inputTokens;
      usage.outputTokens += step.usage.outputTokens;
      const body = renderCondensed(step.text);
      if (body && estimateTokens(body) <= input.maxResultTokens) return done(body, 2);
    } catch {
      // Level 3 below is the documented fallback for any model failure.
    }
  }
  return done(truncateHeadTail(input.text, input.maxResultTokens), 3);
}

/** Renders the model's JSON as markdown sections; plain prose is accepted as a summary. */
export function renderCondensed(output: string): string | null {
  const raw = output.match(FENCE)?.[1] ?? output;
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    const text = output.trim();
    return text.length > 0 ? text : null;
  }
  const parsed = condensedSchema.safeParse(json);
  if (!parsed.success) return null;
  const c = parsed.data;
  const section = (title: string, items: string[]) => (items.length ? `\n\n${title}:\n${items.map((i) => `- ${i}`).join("\n")}` : "");
  return `Summary: ${c.summary}${section("Conclusions", c.conclusions)}${section("Key Data", c.keyData)}${section("File Paths", c.filePaths)}${section("Action Items", c.actionItems)}${section("Errors", c.errors)}`;
}

export function truncateHeadTail(text: string, maxTokens: number): string {
  const budget = Math.max(0, maxTokens * CHARS_PER_TOKEN - 80);
  const head = Math.floor(budget * 0.6);
  const tail = budget - head;
  const omitted = text.length - head - tail;
  if (omitted <= 0) return text;
  const marker = `\n\n[... ${estimateTokens(text.slice(head, text.length - tail))} tokens omitted ...]\n\n`;
  return `${text.slice(0, head)}${marker}${tail > 0 ? text.slice(text.length - tail) : ""}`;
}
