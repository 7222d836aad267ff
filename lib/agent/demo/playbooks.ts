import { COMPACT_SYSTEM_PROMPT, OBJECTIVE_TAG } from "@/lib/context/compact";
import type { ChatMessage, ModelRequest } from "@/lib/model/types";
import { STEER_TAG } from "../agent-loop";
import { CONDENSE_SYSTEM_PROMPT } from "../condense";
import { SUBAGENT_TOOL_NAME } from "../definitions";
import { MASTER_PROMPT_MARKER } from "../prompts";
import { narrativeBody, parseFileRead, parseGrep, parseListing, type GrepHit } from "./parse-tool-output";
import { classify, escapeRegex, keywordsOf, topicsOf } from "./topics";
import { delegateFix, editFix, isFixTask, masterFix } from "./fix-typo";
import { chatAnswer, compactSummary, condenseJson } from "./system-replies";

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
    return maySpawn ? workerReply(request.messages) : exploreReply(request.messages, tools);
  }
  if (system.startsWith(MASTER_PROMPT_MARKER) || tools.has(SUBAGENT_TOOL_NAME)) return masterReply(request.messages, tools);
  return { text: chatAnswer(lastUserText(request.messages)) };
}

function lastUserText(messages: readonly ChatMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.role === "user") return messages[i]!.content;
  return "";
}

function isNote(content: string): boolean {
  return content.startsWith(STEER_TAG) || content.startsWith(OBJECTIVE_TAG);
}

/** The master: delegate research in one step, then answer from the subagents' results. */
function masterReply(messages: readonly ChatMessage[], tools: Set<string>): DemoReply {
  let start = messages.length - 1;
  while (start > 0 && !(messages[start]!.role === "user" && !isNote(messages[start]!.content))) start--;
  const prompt = messages[start]?.content ?? "";
  const results = messages.slice(start).filter((m): m is ToolMessage => m.role === "tool");
  if (isFixTask(prompt) && tools.has(SUBAGENT_TOOL_NAME)) return masterFix(prompt, results);
  if (results.length > 0) return { text: synthesize(results, taskByCallId(messages)) };
  const intent = classify(prompt);
  if (intent === "chat" || !tools.has(SUBAGENT_TOOL_NAME)) return { text: chatAnswer(prompt) };
  if (intent === "deep") {
    return {
      text: "This needs depth, so I'm handing it to a `general` subagent that can delegate further.\n\n",
      toolCalls: [{ name: SUBAGENT_TOOL_NAME, args: { agent: "general", task: topicsOf(prompt).join(" and "), objective: prompt } }],
    };
  }
  const topics = topicsOf(prompt);
  return {
    text: `I'll research ${topics.length === 1 ? "this" : `these ${topics.length} aspects in parallel`} with \`explore\` subagents.\n\n`,
    toolCalls: topics.map((topic) => ({ name: SUBAGENT_TOOL_NAME, args: { agent: "explore", task: topic, objective: prompt } })),
  };
}

/** The task each subagent call was given, by call id, from the assistant messages. */
function taskByCallId(messages: readonly ChatMessage[]): Map<string, string> {
  const tasks = new Map<string, string>();
  for (const m of messages) {
    if (m.role !== "assistant") continue;
    for (const call of m.toolCalls ?? []) {
      try {
        const task = (JSON.parse(call.arguments) as { task?: unknown }).task;
        if (typeof task === "string") tasks.set(call.id, task);
      } catch {
        // Not our call's JSON: the label alone will do.
      }
    }
  }
  return tasks;
}

function synthesize(results: ToolMessage[], tasks: Map<string, string>): string {
  const parts = results.map((r, i) => {
    const { label, status, body } = r.content.startsWith("[Subagent Result:")
      ? narrativeBody(r.content)
      : { label: r.toolName, status: "Refused", body: r.content };
    const task = tasks.get(r.toolCallId) ?? label;
    return { label, status, task, section: `### ${i + 1}. ${task}\n\n${body}` };
  });
  const table = [
    "| # | task | subagent | status |",
    "|---|---|---|---|",
    ...parts.map((p, i) => `| ${i + 1} | ${p.task.replace(/\|/g, "/")} | ${p.label} | ${p.status} |`),
  ];
  return [
    "## Findings",
    "",
    `Here is what ${parts.length === 1 ? "the subagent" : `the ${parts.length} subagents`} found. Only their final results reached me; their tool calls are in the panels above.`,
    "",
    ...parts.map((p) => `${p.section}\n`),
    table.join("\n"),
  ].join("\n");
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
  const sections = results.map((r) => {
    const { label, body } = r.content.startsWith("[Subagent Result:") ? narrativeBody(r.content) : { label: r.toolName, body: r.content };
    return `#### From ${label}\n\n${body}`;
  });
  return {
    text: [`### Deep dive: ${task}`, ...sections, `**Assessment:** ${results.length} focused investigation(s), each quoting the workspace directly.`].join("\n\n"),
  };
}

function taskOf(messages: readonly ChatMessage[]): string {
  const first = messages.find((m) => m.role === "user" && !isNote(m.content));
  return first?.content.trim() ?? "the task";
}

/** A read-only researcher: list + grep in one step, read the best file, answer with quotes. */
function exploreReply(messages: readonly ChatMessage[], tools: Set<string>): DemoReply {
  const task = taskOf(messages);
  const steering = messages.filter((m) => m.role === "user" && m.content.startsWith(STEER_TAG)).map((m) => m.content.slice(STEER_TAG.length).trim());
  const keywords = keywordsOf([task, ...steering].join(" "));
  const results = messages.filter((m): m is ToolMessage => m.role === "tool");
  const listing = results.filter((r) => r.toolName === "list_files").flatMap((r) => parseListing(r.content));
  const hits = results.filter((r) => r.toolName === "grep").flatMap((r) => parseGrep(r.content));
  const reads = results.filter((r) => r.toolName === "file_read").map((r) => parseFileRead(r.content)).filter((r) => r !== null);
  if (!tools.has("grep") || !tools.has("file_read") || !tools.has("list_files") || keywords.length === 0) {
    return { text: `I could not research "${task}": ${keywords.length === 0 ? "it names nothing to search for" : "I have no workspace tools"}.` };
  }
  const searched = results.some((r) => r.toolName === "grep" || r.toolName === "list_files");
  if (!searched) {
    return {
      thinking: `Plan: list the workspace, grep for ${keywords.join(", ")}, then read the most relevant file.`,
      toolCalls: [
        { name: "list_files", args: { path: ".", recursive: true } },
        { name: "grep", args: { pattern: keywords.map(escapeRegex).join("|"), ignoreCase: true, maxMatches: 60 } },
      ],
    };
  }
  const best = bestFile(listing, hits, keywords);
  if (reads.length === 0 && best) {
    return { thinking: `The most relevant file looks like ${best}.`, toolCalls: [{ name: "file_read", args: { path: best, endLine: 80 } }] };
  }
  return { text: exploreAnswer(task, keywords, hits, reads[0] ?? null, steering) };
}

function bestFile(listing: string[], hits: GrepHit[], keywords: string[]): string | undefined {
  const scores = new Map<string, number>();
  for (const path of new Set([...listing, ...hits.map((h) => h.path)])) {
    const name = path.toLowerCase();
    const nameScore = keywords.filter((k) => name.includes(k)).length * 3;
    const hitScore = Math.min(5, hits.filter((h) => h.path === path).length);
    const textBonus = /\.(md|txt|rst)$/.test(name) ? 1 : 0;
    if (nameScore + hitScore > 0) scores.set(path, nameScore + hitScore + textBonus);
  }
  return [...scores.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]?.[0];
}

function exploreAnswer(task: string, keywords: string[], hits: GrepHit[], read: ReturnType<typeof parseFileRead>, steering: string[]): string {
  const matches = (text: string) => keywords.some((k) => text.toLowerCase().includes(k));
  const out = [`**${task}**: what the workspace says`, ""];
  if (read) {
    // A file named after the topic is relevant throughout: quote its opening; otherwise the matching lines.
    const named = keywords.some((k) => read.path.toLowerCase().includes(k));
    const nonEmpty = read.lines.filter((l) => l.text.trim());
    const relevant = named ? nonEmpty.slice(0, 14) : nonEmpty.filter((l) => matches(l.text)).slice(0, 8);
    const quoted = relevant.length ? relevant : nonEmpty.slice(0, 6);
    out.push(`Most relevant file: \`${read.path}\``, "", "```text", ...quoted.map((l) => `${l.number}: ${l.text}`), "```", "");
  }
  const others = hits.filter((h) => h.path !== read?.path);
  const perFile = new Map<string, GrepHit>();
  for (const h of others) if (!perFile.has(h.path)) perFile.set(h.path, h);
  if (perFile.size) {
    out.push(`Also mentioned in ${perFile.size} other file(s) (grep for \`${keywords.join("|")}\`, ${hits.length} matches):`);
    for (const h of [...perFile.values()].slice(0, 5)) out.push(`- \`${h.path}:${h.line}\` — ${h.text.slice(0, 140)}`);
  } else if (!read) {
    out.push(`No file in the workspace mentions ${keywords.join(", ")}.`);
  }
  if (steering.length) out.push("", `Steering applied: ${steering.map((s) => `“${s}”`).join(", ")}.`);
  return out.join("\n").trim();
}
