import type { ChatMessage } from "@/lib/model/types";
import { narrativeBody } from "./parse-tool-output";

/**
 * How the demo's master (and a delegating `general`) answers from its subagents' clean
 * results: one line per subagent, citing it by name and task ("The explore agent on *the
 * open bugs* found …"), quoting the first line of its answer, never its run id and never
 * its whole response: the panels above hold those. A `general`'s own one-line summaries
 * of its children are kept as nested bullets, so a deep dive still reads as one story.
 */

type ToolMessage = Extract<ChatMessage, { role: "tool" }>;

/** What the parent asked each subagent call for, from its own assistant messages. */
export interface SpawnedCall {
  agent: string;
  task: string;
}

const RUN_LABEL_SUFFIX = /-[A-Za-z0-9]{1,8}$/;
const CITATION = /^- The \S+ agent on \*/;
const MARKDOWN_SPECIAL = /([\\`*_[\]<>#|~])/g;
const FIRST_PERSON = /^I\s+/;

export function spawnedCalls(messages: readonly ChatMessage[]): Map<string, SpawnedCall> {
  const calls = new Map<string, SpawnedCall>();
  for (const m of messages) {
    if (m.role !== "assistant") continue;
    for (const call of m.toolCalls ?? []) {
      try {
        const args = JSON.parse(call.arguments) as { agent?: unknown; task?: unknown };
        if (typeof args.task === "string") calls.set(call.id, { agent: typeof args.agent === "string" ? args.agent : "", task: args.task });
      } catch {
        // Not a subagent call's JSON: the result's own label will do.
      }
    }
  }
  return calls;
}

interface Cited {
  agent: string;
  line: string;
  status: string;
  nested: string[];
}

/** One subagent's result as one cited line (plus its own citations, for a delegating agent). */
export function citeResult(result: ToolMessage, call: SpawnedCall | undefined): Cited {
  if (!result.content.startsWith("[Subagent Result:")) {
    const who = call ? `The ${call.agent || "subagent"} agent on *${escapeMarkdown(call.task)}*` : "A subagent";
    return {
      agent: call?.agent || "subagent",
      line: `${who} could not start: ${firstLine(result.content).replace(/^Error \[[a-z_]+\]: /, "")}`,
      status: "Refused",
      nested: [],
    };
  }
  const { label, status, body } = narrativeBody(result.content);
  const agent = call?.agent || label.replace(RUN_LABEL_SUFFIX, "");
  const who = call ? `The ${agent} agent on *${escapeMarkdown(call.task)}*` : `The ${agent} agent`;
  const nested = body
    .split("\n")
    .filter((l) => CITATION.test(l))
    .map((l) => l.slice(2));
  if (status !== "Completed") {
    const error = /^Error: (.+)$/m.exec(result.content)?.[1];
    return {
      agent,
      line: `${who} ended **${status}**${error ? ` (${error})` : ""} before it finished; its panel has what it did and a Retry.`,
      status,
      nested: [],
    };
  }
  const summary = firstLine(body);
  const line = FIRST_PERSON.test(summary) ? `${who} ${summary.replace(FIRST_PERSON, "")}` : `${who} reports: ${summary}`;
  return { agent, line, status, nested };
}

/** The parent's short answer: a sentence, a cited line per subagent, the outcome counts. */
export function synthesize(results: readonly ToolMessage[], calls: Map<string, SpawnedCall>): string {
  const cited = results.map((r) => citeResult(r, calls.get(r.toolCallId)));
  const n = cited.length;
  const agents = new Set(cited.map((c) => c.agent));
  const who = agents.size === 1 ? `${[...agents][0]} agent${n === 1 ? "" : "s"}` : "subagents";
  const lead =
    n === 1
      ? `Here is what the ${who} found; its full answer and every tool call are in its panel above.`
      : `Here is what the ${n} ${who} found; their full answers and every tool call are in the panels above.`;
  const compared = compareModules(cited.map((c) => c.line));
  const counts = new Map<string, number>();
  for (const c of cited) counts.set(c.status, (counts.get(c.status) ?? 0) + 1);
  const outcome = [...counts.entries()].map(([status, k]) => `${k} ${status}`).join(" · ");
  return [
    lead,
    "",
    ...cited.flatMap((c) => [`- ${c.line}`, ...c.nested.map((l) => `  - ${l}`)]),
    "",
    ...(compared ? [compared, ""] : []),
    `Status: ${outcome}.`,
  ].join("\n");
}

const MODULE_FINDING = /found `([^`]+\/)?([\w-]+)\.py` \((\d+) lines\)/;
const USES = /it uses ((?:`\w+`(?:, )?)+)/;

/**
 * What only a reader of all the answers can say about several modules: which is largest and
 * smallest, and which of them the others depend on (from each answer's "It uses …").
 */
export function compareModules(lines: readonly string[]): string | undefined {
  const modules = lines.flatMap((line) => {
    const m = MODULE_FINDING.exec(line);
    if (!m) return [];
    const uses = [...(USES.exec(line)?.[1] ?? "").matchAll(/`(\w+)`/g)].map((u) => u[1]!);
    return [{ name: m[2]!, lines: Number(m[3]), uses }];
  });
  if (modules.length < 2) return undefined;
  const bySize = [...modules].sort((a, b) => b.lines - a.lines || a.name.localeCompare(b.name));
  const largest = bySize[0]!;
  const smallest = bySize.at(-1)!;
  const parts = [`\`${largest.name}\` is the largest (${largest.lines} lines) and \`${smallest.name}\` the smallest (${smallest.lines})`];
  const names = new Set(modules.map((m) => m.name));
  const usedBy = [...names]
    .map((name) => ({ name, by: modules.filter((m) => m.uses.includes(name)).map((m) => m.name) }))
    .filter((u) => u.by.length > 0)
    .sort((a, b) => b.by.length - a.by.length || a.name.localeCompare(b.name))[0];
  if (usedBy) parts.push(`\`${usedBy.name}\` is the one the others lean on (used by ${usedBy.by.map((b) => `\`${b}\``).join(" and ")})`);
  return `**Compared:** ${parts.join("; ")}.`;
}

/** The first line of the first paragraph that is prose (not a heading, a fence or a table). */
function firstLine(text: string): string {
  const line = text
    .split("\n")
    .map((l) => l.trim())
    .find((l) => l && !l.startsWith("#") && !l.startsWith("```") && !l.startsWith("|") && !l.startsWith("- "));
  const plain = (line ?? "(no answer)").replace(/^\*\*([^*]+)\*\*:\s*/, "");
  return plain.length > 300 ? `${plain.slice(0, 300).replace(/\s+\S*$/, "")}…` : plain;
}

function escapeMarkdown(text: string): string {
  return text.replace(MARKDOWN_SPECIAL, "\\$1").replace(/\s+/g, " ").trim();
}
