import { MASTER_PROMPT_MARKER } from "@/lib/agent/prompts";
import { scriptedReply, type ScriptedHandler, type ScriptedRequest } from "@/test/support/model/scripted-openai-server";

/** A request of the master's (its system prompt starts with the marker), not a subagent's or the condenser's. */
export const isMasterRequest = (r: ScriptedRequest): boolean =>
  String(r.body?.messages?.[0]?.content ?? "").startsWith(MASTER_PROMPT_MARKER);

/**
 * The master on a scripted OpenAI-compatible server, for tests of remote agents: it hands
 * the person's prompt to a subagent, "Delegate: <task>" to `agent` or "Delegate to
 * <name>: <task>" to the one named, as tool call `c-remote`; once the result is back it
 * says `answer`. Any other caller is told "(not the master)".
 */
export function delegatingMaster(options: { agent: string; answer: string }): ScriptedHandler {
  return (r) => {
    if (!isMasterRequest(r)) return scriptedReply({ text: ["(not the master)"] });
    if (r.body.messages.at(-1).role === "tool") return scriptedReply({ text: [options.answer] });
    const prompt = String(r.body.messages.findLast((m: { role: string }) => m.role === "user")?.content ?? "");
    const [, named, task] = /^Delegate(?: to (\w+))?: (.*)$/s.exec(prompt) ?? [];
    const args = { agent: named ?? options.agent, task: task ?? prompt };
    return scriptedReply({ toolCalls: [{ id: "c-remote", name: "subagent", argumentChunks: [JSON.stringify(args)] }] });
  };
}
