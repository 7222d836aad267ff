import { demoReply } from "@/lib/agent/demo/playbooks";
import { stableHash } from "@/lib/agent/demo/topics";
import { estimateRequestTokens, estimateTokens } from "@/lib/context/tokens";
import { ModelError, type ChatModel, type ModelRequest, type ModelStreamEvent } from "./types";

/**
 * The offline demo model ("Offline demo model", isDemo: true): answers when no provider is
 * configured. Deterministic and network-free, it still drives the REAL tools and REAL
 * subagents: every reply is decided from the messages it is given (its role comes from the
 * system prompt, its progress from the tool results it has received).
 *
 * What triggers what (the user's latest message, case-insensitive; the prompts the home page,
 * the help and the README offer are in lib/agent/demo/prompts.ts):
 *  - "deep dive", "thorough"/"thoroughly", "in depth" → the master spawns ONE `general`
 *    subagent; the general splits its task on "and" / "," / "vs" and spawns an `explore`
 *    grandchild per part (at most 3), then answers with a cited line per grandchild.
 *  - "investigate", "compare", "research", "look into", "analyse/analyze", "explore",
 *    "find", "review", "summarise/summarize", "check" → the words after the verb are split
 *    on "and", ",", ";", "&", "vs", "versus", "with" into at most 5 topics (the default
 *    MAX_CHILDREN_PER_AGENT), and the master calls `subagent` (agent "explore") once per
 *    topic IN ONE STEP, so they run in parallel. A list ending in its noun shares it: "compare
 *    the harmonics, constituents, datums, extremes and stations modules" → five explore runs,
 *    "the harmonics module" …; a module task reads the module's source file.
 *  - "fix … typo" (e.g. "Fix the typo in CONTRIBUTING.md") → the master spawns a `general`,
 *    which spawns another `general` (at depth 2 it may not spawn, so it does the work): it
 *    greps the named file (or the workspace) for a few known misspellings ("recieve",
 *    "seperate", "teh", …) and calls `file_edit` on the first line found — a call that
 *    waits for the person's approval, with the diff. Its answer says whether the edit was
 *    made, denied (quoting the reason) or expired; the master reports that answer.
 *  - anything else ("hello", …) → a direct streamed markdown answer: the prompts above as a
 *    table plus a code block showing how to configure a real model.
 *
 * Each `explore` run: step 1 calls list_files (recursive) and grep (its task's keywords,
 * plurals stripped, stopwords dropped) together; step 2 file_reads the best-scoring file
 * (keywords in its name, grep hits); step 3 answers: a first line "I found `file`, line n:
 * “…”" (its key line, or a module's docstring, definitions and imports), then the lines it
 * read and the other files grep found. Steering messages it receives add their keywords and
 * are acknowledged in its answer. The master's final answer is a short synthesis built from
 * the subagents' clean results only (lib/agent/demo/synthesis.ts): one line per subagent
 * citing it by name and task ("The explore agent on *the open bugs* found …"), never a run
 * id, never its whole response (the panels hold those), and the outcome counts.
 *
 * Retry needs nothing of its own: a retried run is an ordinary `explore`/`general` run, and
 * a retry turn (see lib/agent/retry.ts) reaches the master with the retried result already
 * in its context, so its answer is built from that result like any other (kill a run of
 * "investigate the open bugs and the release plan", then Retry it).
 *
 * It also serves the runtime's system requests: result condensation (structured JSON) and
 * context compaction (a summary of the user's earlier requests).
 *
 * Pace: each reply starts after `replyDelayMs` (about; a real model's time to first token),
 * then streams in chunks of a few words with `chunkDelayMs` between them. The app's
 * defaults (DEMO_REPLY_DELAY_MS, DEMO_CHUNK_DELAY_MS in lib/env.ts) make a two-subagent turn
 * last 12-14 s, slow enough to watch the panels; the
 * tests set both low. Usage is reported from the token estimator.
 */

export interface DemoModelOptions {
  /** Pause before each streamed chunk of a few words. */
  chunkDelayMs?: number;
  wordsPerChunk?: number;
  /**
   * Pause before each reply starts, as a real model's time to first token, so each step of
   * a subagent (its tool calls, then its answer) stays on screen long enough to read. Each
   * request waits between half and one and a half times this (from a hash of the request,
   * so a re-run waits the same), which makes parallel subagents finish at different times.
   * Default 0: tests and library callers get no latency unless they ask for it.
   */
  replyDelayMs?: number;
}

export const DEMO_MODEL_LABEL = "Offline demo model";

export function createDemoModel(options: DemoModelOptions = {}): ChatModel {
  const chunkDelayMs = options.chunkDelayMs ?? 15;
  const wordsPerChunk = options.wordsPerChunk ?? 4;
  const replyDelayMs = options.replyDelayMs ?? 0;
  return {
    id: "demo",
    label: DEMO_MODEL_LABEL,
    isDemo: true,
    stream: (request) => streamDemo(request, chunkDelayMs, wordsPerChunk, replyDelayMs),
  };
}

async function* streamDemo(
  request: ModelRequest,
  delayMs: number,
  wordsPerChunk: number,
  replyDelayMs: number,
): AsyncGenerator<ModelStreamEvent> {
  const reply = demoReply(request);
  const signal = request.signal;
  await pause(firstTokenDelay(request, replyDelayMs), signal);
  for (const piece of chunks(reply.thinking ?? "", wordsPerChunk)) {
    await pause(delayMs, signal);
    yield { type: "thinking", text: piece };
  }
  for (const piece of chunks(reply.text ?? "", wordsPerChunk)) {
    await pause(delayMs, signal);
    yield { type: "text", text: piece };
  }
  // Ids depend on the whole conversation so far: unique per run, identical on a re-run.
  const seed = stableHash(JSON.stringify(request.messages));
  const calls = (reply.toolCalls ?? []).map((c, i) => ({ id: `call_${seed}_${i}`, name: c.name, arguments: JSON.stringify(c.args) }));
  for (const call of calls) yield { type: "tool_call", call };
  yield {
    type: "usage",
    inputTokens: estimateRequestTokens(request.messages, request.tools),
    outputTokens:
      estimateTokens((reply.thinking ?? "") + (reply.text ?? "")) + calls.reduce((n, c) => n + estimateTokens(c.arguments) + 4, 0),
  };
  yield { type: "done", finishReason: calls.length ? "tool_calls" : "stop" };
}

/** Between half and one and a half times `base`, the same for the same request. */
export function firstTokenDelay(request: ModelRequest, base: number): number {
  if (base <= 0) return 0;
  const spread = Number.parseInt(stableHash(JSON.stringify(request.messages)), 16) / 0xffffffff;
  return Math.round(base * (0.5 + spread));
}

/** Splits text into pieces of a few words, keeping every character (whitespace included). */
export function chunks(text: string, wordsPerChunk: number): string[] {
  const words = text.match(/\S+\s*|\s+/g) ?? [];
  const out: string[] = [];
  for (let i = 0; i < words.length; i += wordsPerChunk) out.push(words.slice(i, i + wordsPerChunk).join(""));
  return out;
}

function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (signal?.aborted) return Promise.reject(new ModelError("aborted", "The request was cancelled."));
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new ModelError("aborted", "The request was cancelled."));
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
