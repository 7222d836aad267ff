import type { ChatMessage } from "@/lib/model/types";
import { STEER_TAG } from "../agent-loop";
import { parseFileRead, parseGrep, parseListing, type FileRead, type GrepHit } from "./parse-tool-output";
import { escapeRegex, keywordsOf } from "./topics";
import { contentText } from "@/lib/model/content";

/**
 * The demo's `explore` subagent: a read-only researcher. Step 1 lists the workspace and
 * greps for its task's keywords together; step 2 reads the best-scoring file; step 3
 * answers. The answer's first paragraph is one line, "I found …", naming the file and its
 * key line: the master quotes that line in its synthesis (lib/agent/demo/synthesis.ts) and
 * leaves the rest (the quoted lines, the other files) to the panel.
 */

type ToolMessage = Extract<ChatMessage, { role: "tool" }>;

export interface ExploreReply {
  thinking?: string;
  text?: string;
  toolCalls?: { name: string; args: Record<string, unknown> }[];
}

/** A task about a module ("the datums module") wants source code, not the notes about it. */
const MODULE_TASK = /\bmodules?\b/i;
const SOURCE_FILE = /\.py$/;
const TEST_PATH = /(^|\/)tests?(\/|_)/;
const TEXT_FILE = /\.(md|txt|rst)$/;
const BOLD = /\*\*([^*]+)\*\*/g;
const DIGIT = /\d/;
const TABLE_ROW = /^\|(.+)\|$/;
const TABLE_RULE = /^\|?[\s:|-]+\|?$/;
const DOCSTRING = /^\s*(?:"""|''')(.+?)(?:"""|''')?\s*$/;
const DEFINITION = /^(?:def|class)\s+([A-Za-z]\w*)/;
const RELATIVE_IMPORT = /^from \.(\w+) import/;
const OUTLINE = /^\s*(def |class |async def |"""|'''|from \.)/;
const QUOTE_CHARS = 160;

export function exploreReply(task: string, messages: readonly ChatMessage[], tools: Set<string>): ExploreReply {
  const steering = messages
    .filter((m) => m.role === "user" && contentText(m.content).startsWith(STEER_TAG))
    .map((m) => contentText(m.content).slice(STEER_TAG.length).trim());
  const keywords = keywordsOf([task, ...steering].join(" "));
  const results = messages.filter((m): m is ToolMessage => m.role === "tool");
  const listing = results.filter((r) => r.toolName === "list_files").flatMap((r) => parseListing(r.content));
  const hits = results.filter((r) => r.toolName === "grep").flatMap((r) => parseGrep(r.content));
  const reads = results
    .filter((r) => r.toolName === "file_read")
    .map((r) => parseFileRead(r.content))
    .filter((r) => r !== null);
  if (!tools.has("grep") || !tools.has("file_read") || !tools.has("list_files") || keywords.length === 0) {
    return {
      text: `I could not research "${task}": ${keywords.length === 0 ? "it names nothing to search for" : "I have no workspace tools"}.`,
    };
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
  const best = bestFile(listing, hits, keywords, MODULE_TASK.test(task));
  if (reads.length === 0 && best) {
    return {
      thinking: `The most relevant file looks like ${best}.`,
      toolCalls: [{ name: "file_read", args: { path: best, endLine: 80 } }],
    };
  }
  return { text: exploreAnswer(keywords, hits, reads[0] ?? null, steering) };
}

export function bestFile(listing: string[], hits: GrepHit[], keywords: string[], wantsSource = false): string | undefined {
  const scores = new Map<string, number>();
  for (const path of new Set([...listing, ...hits.map((h) => h.path)])) {
    const name = path.toLowerCase();
    const nameScore = keywords.filter((k) => name.includes(k)).length * 3;
    const hitScore = Math.min(5, hits.filter((h) => h.path === path).length);
    if (nameScore + hitScore === 0) continue;
    // A module task wants the source file named after it: not another file that mentions it often, nor its test.
    const bonus = wantsSource
      ? (SOURCE_FILE.test(name) && nameScore > 0 ? 10 : 0) - (TEST_PATH.test(name) ? 2 : 0)
      : TEXT_FILE.test(name)
        ? 1
        : 0;
    scores.set(path, nameScore + hitScore + bonus);
  }
  return [...scores.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]?.[0];
}

function exploreAnswer(keywords: string[], hits: GrepHit[], read: FileRead | null, steering: string[]): string {
  const matches = (text: string) => keywords.some((k) => text.toLowerCase().includes(k));
  const others = new Map<string, GrepHit>();
  for (const h of hits) if (h.path !== read?.path && !others.has(h.path)) others.set(h.path, h);
  const out = [`I ${finding(read, keywords, others.size)}`, ""];
  if (read) {
    // A file named after the topic is relevant throughout: quote its opening; otherwise the matching lines.
    const named = keywords.some((k) => read.path.toLowerCase().includes(k));
    const nonEmpty = read.lines.filter((l) => l.text.trim());
    // Of a module's source, its outline says most: the docstrings and the definitions.
    const opening = SOURCE_FILE.test(read.path) ? nonEmpty.filter((l) => OUTLINE.test(l.text)) : nonEmpty;
    const relevant = named ? (opening.length ? opening : nonEmpty).slice(0, 14) : nonEmpty.filter((l) => matches(l.text)).slice(0, 8);
    const quoted = (relevant.length ? relevant : nonEmpty.slice(0, 6)).map((l) => `${l.number}: ${l.text}`);
    const fence = fenceFor(quoted);
    out.push(`From \`${read.path}\`:`, "", `${fence}text`, ...quoted, fence, "");
  }
  if (others.size) {
    out.push(`Also mentioned in ${others.size} other file(s) (grep for \`${keywords.join("|")}\`, ${hits.length} matches):`);
    for (const h of [...others.values()].slice(0, 5)) out.push(`- \`${h.path}:${h.line}\` — ${clip(h.text, 140)}`);
  }
  if (steering.length) out.push("", `Steering applied: ${steering.map((s) => `“${s}”`).join(", ")}.`);
  return out.join("\n").trim();
}

/** The answer's one-line summary, a verb phrase after "I": the file read and what matters in it. */
function finding(read: FileRead | null, keywords: string[], otherFiles: number): string {
  const elsewhere = otherFiles
    ? `; ${otherFiles} other file${otherFiles === 1 ? "" : "s"} mention${otherFiles === 1 ? "s" : ""} it too`
    : "";
  if (!read) {
    return otherFiles
      ? `found ${keywords.join(", ")} in ${otherFiles} file${otherFiles === 1 ? "" : "s"}, but could not read one.`
      : `found nothing: no file in the workspace mentions ${keywords.join(", ")}.`;
  }
  if (SOURCE_FILE.test(read.path)) return `found \`${read.path}\`${moduleFacts(read)}`;
  const key = keyLine(read, keywords);
  return key
    ? `found \`${read.path}\`, line ${key.number}: “${clip(plain(key.text), QUOTE_CHARS)}”${elsewhere}.`
    : `found \`${read.path}\`${elsewhere}.`;
}

/** What a Python module is for and what it offers: its docstring, definitions and sibling imports. */
function moduleFacts(read: FileRead): string {
  const size = read.endOfFile && read.lines.length ? ` (${read.lines.at(-1)!.number} lines)` : "";
  const doc = DOCSTRING.exec(read.lines[0]?.text ?? "")?.[1]?.trim();
  const defs = read.lines.flatMap((l) => DEFINITION.exec(l.text)?.[1] ?? []).filter((d) => !d.startsWith("_"));
  const uses = read.lines.flatMap((l) => RELATIVE_IMPORT.exec(l.text)?.[1] ?? []);
  const facts: string[] = [];
  if (defs.length)
    facts.push(
      `defines ${defs
        .slice(0, 4)
        .map((d) => `\`${d}\``)
        .join(", ")}${defs.length > 4 ? ` and ${defs.length - 4} more` : ""}`,
    );
  if (uses.length) facts.push(`uses ${uses.map((u) => `\`${u}\``).join(", ")}`);
  const what = doc ? `: “${clip(doc, QUOTE_CHARS)}”` : ".";
  return `${size}${what}${facts.length ? ` It ${facts.join("; it ")}.` : ""}`;
}

/**
 * The line that says the most: authors bold what matters (a date in bold most of all); a
 * table row (a record), a line naming the topic or holding a figure beats prose; a heading
 * says little.
 */
export function keyLine(read: FileRead, keywords: string[]): { number: number; text: string } | undefined {
  const words = keywords.map((k) => new RegExp(`\\b${escapeRegex(k)}(s|es)?\\b`, "i"));
  const named = keywords.some((k) => read.path.toLowerCase().includes(k));
  // In a file named after the topic every line is about it; elsewhere only the lines naming it are.
  const about = named ? read.lines : read.lines.filter((l) => words.some((w) => w.test(l.text)));
  let best: { number: number; text: string } | undefined;
  let bestScore = 0;
  for (const line of about.length ? about : read.lines) {
    const text = line.text.trim();
    if (!text || TABLE_RULE.test(text)) continue;
    const bold = [...text.matchAll(BOLD)].map((m) => m[1]!);
    let score = (bold.length ? 2 : 0) + (bold.some((b) => DIGIT.test(b)) ? 1 : 0) + (DIGIT.test(text) ? 1 : 0);
    score += words.filter((w) => w.test(text)).length;
    if (TABLE_ROW.test(text)) score += 1;
    if (text.startsWith("#")) score -= 2;
    if (score > bestScore) [best, bestScore] = [line, score];
  }
  return best;
}

/** A line as prose: a table row's cells joined (a leading number as #n), bold markers dropped, backticks kept out of the quote. */
function plain(text: string): string {
  const row = TABLE_ROW.exec(text.trim());
  // A row that starts with a bare number is an issue-like record: "#41 · …".
  const prose = row
    ? row[1]!
        .split("|")
        .map((c) => c.trim())
        .filter(Boolean)
        .join(" · ")
        .replace(/^(\d+) · /, "#$1 · ")
    : text.trim();
  return prose.replace(BOLD, "$1").replace(/`/g, "");
}

function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(" "), max / 2)).trimEnd()}…`;
}

/** A code fence longer than any backtick run in the quoted lines, so a quoted fence cannot end it. */
function fenceFor(lines: string[]): string {
  const longest = Math.max(2, ...lines.map((l) => Math.max(0, ...[...l.matchAll(/`+/g)].map((m) => m[0].length))));
  return "`".repeat(longest + 1);
}
