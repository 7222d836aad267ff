import { COMPACT_SYSTEM_PROMPT, OBJECTIVE_TAG } from "@/lib/context/compact";
import type { ChatMessage, ModelRequest } from "@/lib/model/types";
import { STEER_TAG } from "../agent-loop";
import { CONDENSE_SYSTEM_PROMPT } from "../condense";
import { SUBAGENT_TOOL_NAME } from "../definitions";
import { MASTER_PROMPT_MARKER } from "../prompts";
import { exploreReply } from "./explore";
import { citeResult, spawnedCalls, synthesize } from "./synthesis";
import { classify, topicsOf } from "./topics";
import { delegateFix, editFix, isFixTask, masterFix } from "./fix-typo";
import { chatAnswer, compactSummary, condenseJson } from "./system-replies";
import { contentText } from "@/lib/model/content";

/**
 * The offline demo model's behaviour, as pure functions of the request it receives: it
 * reads the messages (its role from the system prompt, its progress from the tool results)
 * and decides the next reply. Behaviour is documented in lib/model/demo-model.ts.
 */

export interface DemoReply {
  thinking?: string;
  text?: string;
  toolCalls?: { name: string; args: Record<string, unknown> }[];
}

type ToolMessage = Extract<ChatMessage, { role: "tool" }>;

const COMPARE = /^\W*compare\b/i;
/** "@reviewer check the plan": the demo master hands the rest to the agent named, if it is offered. */
const NAMED_AGENT = /^\s*@([a-z][a-z0-9_-]{0,39})\s+(\S[\s\S]*)$/;

/** The agents the subagent tool offers (its `agent` enum), so the demo can call one made in the app. */
function offeredAgents(request: ModelRequest): string[] {
  const spec = request.tools?.find((t) => t.name === SUBAGENT_TOOL_NAME);
  const agent = (spec?.parameters as { properties?: { agent?: { enum?: unknown } } } | undefined)?.properties?.agent;
  return Array.isArray(agent?.enum) ? agent.enum.filter((n): n is string => typeof n === "string") : [];
}

export function demoReply(request: ModelRequest): DemoReply {
  const system = request.messages[0]?.role === "system" ? request.messages[0].content : "";
  const tools = new Set((request.tools ?? []).map((t) => t.name));
  if (system === CONDENSE_SYSTEM_PROMPT) return { text: condenseJson(lastUserText(request.messages)) };
  if (system === COMPACT_SYSTEM_PROMPT) return { text: compactSummary(lastUserText(request.messages)) };
  if (system.includes("## Spawn packet")) {
    const maySpawn = tools.has(SUBAGENT_TOOL_NAME) && / you may spawn/.test(system);
    const task = taskOf(request.messages);
    if (isFixTask(task) && (maySpawn || tools.has("file_edit"))) {
      const results = request.messages.filter((m): m is ToolMessage => m.role === "tool");
      return maySpawn ? delegateFix(task, results) : editFix(task, results);
    }
    return maySpawn ? workerReply(request.messages) : exploreReply(task, request.messages, tools);
  }
  if (system.startsWith(MASTER_PROMPT_MARKER) || tools.has(SUBAGENT_TOOL_NAME))
    return masterReply(request.messages, tools, offeredAgents(request));
  return { text: chatAnswer(lastUserText(request.messages)) };
}

function lastUserText(messages: readonly ChatMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.role === "user") return contentText(messages[i]!.content);
  return "";
}

function isNote(content: string): boolean {
  return content.startsWith(STEER_TAG) || content.startsWith(OBJECTIVE_TAG);
}

/** The master: delegate research in one step, then answer from the subagents' results. */
function masterReply(messages: readonly ChatMessage[], tools: Set<string>, agents: readonly string[] = []): DemoReply {
  let start = messages.length - 1;
  while (start > 0 && !(messages[start]!.role === "user" && !isNote(contentText(messages[start]!.content)))) start--;
  const prompt = contentText(messages[start]?.content ?? "");
  const results = messages.slice(start).filter((m): m is ToolMessage => m.role === "tool");
  if (isFixTask(prompt) && tools.has(SUBAGENT_TOOL_NAME)) return masterFix(prompt, results, spawnedCalls(messages));
  if (results.length > 0) return { text: synthesize(results, spawnedCalls(messages)) };
  const named = NAMED_AGENT.exec(prompt);
  if (named && agents.includes(named[1]!)) {
    const [, agent, task] = named;
    return {
      text: `I'm handing this to the \`${agent}\` subagent.\n\n`,
      toolCalls: [{ name: SUBAGENT_TOOL_NAME, args: { agent: agent!, task: task!.trim(), objective: prompt } }],
    };
  }
  const intent = classify(prompt);
  if (intent === "chat" || !tools.has(SUBAGENT_TOOL_NAME)) return { text: chatAnswer(prompt) };
  if (intent === "deep") {
    return {
      thinking: "This needs digging: one general subagent can split it and keep the detail away from me.",
      text: "This needs depth, so I'm handing it to a `general` subagent that can delegate further.\n\n",
      toolCalls: [{ name: SUBAGENT_TOOL_NAME, args: { agent: "general", task: topicsOf(prompt).join(" and "), objective: prompt } }],
    };
  }
  const topics = topicsOf(prompt);
  const text =
    topics.length === 1
      ? "I'll research this with an `explore` subagent.\n\n"
      : COMPARE.test(prompt)
        ? `To compare them, I'm sending an \`explore\` subagent to each of the ${topics.length} at once.\n\n`
        : `I'll research these ${topics.length} aspects in parallel with \`explore\` subagents.\n\n`;
  return {
    thinking: `${topics.length === 1 ? "One part" : `${topics.length} independent parts`}: an explore subagent for each, so I read their answers and none of their file reads.`,
    text,
    toolCalls: topics.map((topic) => ({ name: SUBAGENT_TOOL_NAME, args: { agent: "explore", task: topic, objective: prompt } })),
  };
}

/** A worker (e.g. `general`): split its task and delegate each part to `explore`. */
function workerReply(messages: readonly ChatMessage[]): DemoReply {
  const task = taskOf(messages);
  const results = messages.filter((m): m is ToolMessage => m.role === "tool");
  if (results.length === 0) {
    const topics = topicsOf(task, 3);
    return {
      thinking: `The task "${task}" has ${topics.length} part(s); each gets its own explore subagent so my context stays small.`,
      toolCalls: topics.map((topic) => ({ name: SUBAGENT_TOOL_NAME, args: { agent: "explore", task: topic, objective: task } })),
    };
  }
  const calls = spawnedCalls(messages);
  const cited = results.map((r) => citeResult(r, calls.get(r.toolCallId)));
  const n = cited.length;
  return {
    text: [
      `I split it into ${n === 1 ? "one part" : `${n} parts`}, ${n === 1 ? "read by an explore agent" : "one explore agent each"}:`,
      "",
      ...cited.map((c) => `- ${c.line}`),
    ].join("\n"),
  };
}

function taskOf(messages: readonly ChatMessage[]): string {
  const first = messages.find((m) => m.role === "user" && !isNote(contentText(m.content)));
  return first ? contentText(first.content).trim() : "the task";
}
