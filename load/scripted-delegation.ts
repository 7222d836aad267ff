import { MASTER_PROMPT_MARKER } from "@/lib/agent/prompts";
import {
  scriptedReply,
  startScriptedOpenAIServer,
  type ScriptedOpenAIServer,
  type ScriptedRequest,
  type ScriptedResponse,
  type ScriptedStreamStep,
} from "@/test/support/model/scripted-openai-server";

/**
 * The model of the multi-process load run: a real OpenAI-compatible HTTP server in the
 * load process that every app process talks to (MODEL + OPENAI_BASE_URL), so the turns
 * run inside the app processes, through the real adapter, as a real model's would.
 *
 * Each turn: the master writes a line and calls `subagent` three times (explore) in one
 * step; each subagent lists the workspace, then answers; the master sums up. Every text
 * chunk carries a marker `«n»` whose send time is kept, so a watcher that receives the
 * text can tell how long it took from the model to its screen (same process, same clock).
 */
export const SUBAGENT_TASKS = ["the open bugs", "the release plan", "the changelog"];

const MARKER = /«(\d+)»/g;

export interface DelegationModel {
  url: string;
  /** When the chunk with marker n was written to the app (performance.now()). */
  sentAt(marker: number): number | undefined;
  close(): Promise<void>;
}

export interface DelegationOptions {
  /** Text chunks per answer (the master's summary and each subagent's). */
  chunks: number;
  chunkDelayMs: number;
}

type WireMessage = { role: string; content: string | null };

/** The markers in a text (a streamed piece holds one; a coalesced one may hold several). */
export function markersIn(text: string): number[] {
  return [...text.matchAll(MARKER)].map((m) => Number(m[1]));
}

export async function startDelegationModel(options: DelegationOptions): Promise<DelegationModel> {
  const sent = new Map<number, number>();
  let next = 0;

  const text = (words: string[], count: number): ScriptedStreamStep[] =>
    Array.from({ length: count }, (_, i) => {
      const marker = next++;
      const piece = `«${marker}» ${words[i % words.length]} `;
      return [
        { delayMs: options.chunkDelayMs },
        { delta: { content: piece }, onSent: () => sent.set(marker, performance.now()) },
      ] satisfies ScriptedStreamStep[];
    }).flat();

  const reply = (steps: ScriptedStreamStep[], tail: ScriptedResponse): ScriptedResponse => {
    if (tail.type !== "stream") return tail;
    const [role, ...rest] = tail.steps;
    return { ...tail, steps: [role!, ...steps, ...rest] };
  };

  const handler = (request: ScriptedRequest): ScriptedResponse => {
    const messages: WireMessage[] = request.body?.messages ?? [];
    const master = String(messages[0]?.content ?? "").startsWith(MASTER_PROMPT_MARKER);
    const answered = messages.some((m) => m.role === "tool");
    const usage = { promptTokens: 400, completionTokens: 60 };
    if (master && !answered) {
      const toolCalls = SUBAGENT_TASKS.map((task, i) => ({
        id: `spawn_${i}`,
        name: "subagent",
        argumentChunks: [JSON.stringify({ agent: "explore", task: `Look into ${task}` })],
      }));
      return reply(text(["Splitting", "this", "three", "ways."], 3), scriptedReply({ toolCalls, usage }));
    }
    if (master)
      return reply(text(["The", "three", "explore", "agents", "found", "what", "follows."], options.chunks), scriptedReply({ usage }));
    if (!answered) {
      const toolCalls = [{ id: "list_0", name: "list_files", argumentChunks: [JSON.stringify({ path: "." })] }];
      return reply(text(["Listing", "the", "workspace."], 2), scriptedReply({ toolCalls, usage }));
    }
    return reply(text(["The", "workspace", "holds", "the", "files", "listed."], options.chunks), scriptedReply({ usage }));
  };

  const server: ScriptedOpenAIServer = await startScriptedOpenAIServer(handler);
  return { url: server.url, sentAt: (marker) => sent.get(marker), close: () => server.close() };
}
