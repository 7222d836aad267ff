import { writeFile } from "node:fs/promises";
import path from "node:path";
import { MASTER_PROMPT_MARKER } from "@/lib/agent/prompts";
import { parseEnv, type Env } from "@/lib/env";
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

/**
 * The settings of a runtime whose master is `masterUrl` and whose subagents are the remote
 * agents of `subagents`, written to `dir` (the workspace too); `idleMs` is how long a
 * remote may stay silent.
 */
export async function remoteAgentsEnv(options: { masterUrl: string; dir: string; subagents: unknown[]; idleMs: number }): Promise<Env> {
  const file = path.join(options.dir, "subagents.json");
  await writeFile(file, JSON.stringify({ subagents: options.subagents }));
  return parseEnv({
    MODEL: "master-model",
    OPENAI_BASE_URL: options.masterUrl,
    OPENAI_API_KEY: "sk-master",
    MODEL_TIMEOUT_MS: "5000",
    MODEL_MAX_RETRIES: "0",
    WORKSPACE_DIR: options.dir,
    SUBAGENTS_FILE: file,
    A2A_IDLE_TIMEOUT_MS: String(options.idleMs),
  });
}
