import { scriptedReply, type ScriptedHandler } from "../../test/support/model/scripted-openai-server";
import { expand, loadCorpus } from "../../test/hostile/corpus";

/** One hostile reply (test-data/hostile/render.json). */
export interface RenderCase {
  id: string;
  note?: string;
  text: unknown;
  toolCall?: { name: string; arguments: Record<string, unknown> };
  expectText?: string;
  expectToolText?: string;
  responsive?: boolean;
}

export const renderCorpus = loadCorpus<RenderCase>("render.json");

/** The prompt that asks the scripted model for a case. */
export const promptFor = (c: RenderCase) => `case ${c.id}`;

/**
 * Answers `case <id>` with that case's hostile reply: its tool call first (when it has
 * one and no tool result came back yet), then its text, streamed chunk by chunk.
 */
export function hostileModel(vars: { attacker: string }): ScriptedHandler {
  return (request) => {
    const messages: Array<{ role: string; content?: unknown }> = request.body?.messages ?? [];
    const lastUser = messages.map((m) => m.role).lastIndexOf("user");
    const prompt = String(messages[lastUser]?.content ?? "");
    const c = renderCorpus.cases.find((x) => prompt.trim() === promptFor(x));
    if (!c) return scriptedReply({ text: ["No such case."] });
    const toolDone = messages.slice(lastUser).some((m) => m.role === "tool");
    if (c.toolCall && !toolDone) {
      return scriptedReply({
        toolCalls: [
          { id: `call_${c.id.replace(/[^a-z0-9]/gi, "_")}`, name: c.toolCall.name, argumentChunks: [JSON.stringify(c.toolCall.arguments)] },
        ],
      });
    }
    const text = expand(c.text, vars);
    return scriptedReply({
      text: Array.isArray(text) ? text.map(String) : [String(text)],
      usage: { promptTokens: 10, completionTokens: 10 },
    });
  };
}
