import type { ChatTurn, InputRequest, Step, SubagentProcess, ToolCall, ToolStatus } from "@/lib/contracts";
import { endReasonLabel, formatCost, formatDuration, formatTokens, prettyJson, totalTokens } from "@/lib/format/display";
import { serializeTurn } from "@/lib/markup/serialize";
import { escapeHtml, fence, inertInline, inertMarkdown } from "./inert-markdown";

/**
 * A chat as a readable Markdown transcript: each prompt and answer as written, each
 * subagent in a collapsible `<details>` (GitHub, GitLab and most viewers fold them) with
 * its task, its steps, every tool call with its parameters and output, and its answer.
 * With `markup`, each turn also carries its `<SubagentExecution>` markup (exact,
 * machine-readable) in a fenced block.
 *
 * Every text a person, a model or a tool wrote is untrusted: it goes into fences long
 * enough never to be closed by what they hold, into `<summary>` lines escaped and on one
 * line (a blank line would end the HTML block and free the rest as Markdown), and into
 * running Markdown through `inertMarkdown`, which keeps its Markdown but no HTML, link or
 * image (a renderer fetches an image as it renders): none of it can open, close or forge
 * the transcript's own folds.
 */

export interface MarkdownOptions {
  markup?: boolean;
  /** Names of the accounts the turns name: a prompt is headed by its sender, a decision says who made it. */
  people?: ReadonlyMap<string, string>;
}

export function markdownHeader(title: string, exportedAt: string): string {
  return `# ${inertInline(title)}\n\n_Exported from Delegate on ${exportedAt.slice(0, 10)}._\n`;
}

export function turnMarkdown(turn: ChatTurn, options: MarkdownOptions = {}): string {
  const people = options.people ?? NOBODY;
  const sender = turn.sentBy !== undefined ? people.get(turn.sentBy) : undefined;
  let out = `\n---\n\n### ${sender !== undefined ? inertInline(sender) : "You"}\n\n${quoteBlock(turn.prompt)}\n\n### Delegate\n\n`;
  out += stepsMarkdown(turn.steps, 0, people);
  if (turn.error) out += `\n> **${turnEndWord(turn)}:** ${inertInline(turn.error)}\n`;
  else if (turn.status === "cancelled") out += "\n> **Stopped** before it finished.\n";
  out += `\n<sub>${turn.model ? `${inertInline(turn.model)} · ` : ""}${statsLine(turn.stats)}</sub>\n`;
  if (options.markup)
    out += `\n<details><summary>SubagentExecution markup</summary>\n\n${fence(serializeTurn(turn), "xml")}\n\n</details>\n`;
  return out;
}

const NOBODY: ReadonlyMap<string, string> = new Map();

/** " by Ana" when the account is named, else nothing. */
function byWhom(people: ReadonlyMap<string, string>, id: string | undefined): string {
  const name = id !== undefined ? people.get(id) : undefined;
  return name !== undefined ? ` by ${inertInline(name)}` : "";
}

function stepsMarkdown(steps: readonly Step[], depth: number, people: ReadonlyMap<string, string>): string {
  let out = "";
  for (const step of steps) {
    if (step.thinking && depth > 0) out += `<details><summary>Reasoning</summary>\n\n${fence(step.thinking)}\n\n</details>\n\n`;
    if (step.text) out += `${inertMarkdown(step.text.trim())}\n\n`;
    for (const call of step.toolCalls)
      out += call.subagent ? subagentMarkdown(call, call.subagent, depth, people) : toolMarkdown(call, people);
  }
  return out;
}

/** What a call's summary adds after its name: nothing for a success, a stop is not an error. */
const TOOL_STATUS_NOTE: Record<ToolStatus, string> = {
  running: " — did not finish",
  success: "",
  error: " — error",
  cancelled: " — stopped",
};

function toolMarkdown(call: ToolCall, people: ReadonlyMap<string, string>): string {
  const status = TOOL_STATUS_NOTE[call.status];
  const more =
    call.responseSize > call.response.length
      ? `\n\n_Output cut at ${call.response.length} of ${call.responseSize} characters; the JSON export holds all of it._`
      : "";
  const approval = call.approval
    ? `\n\nApproval: **${call.approval.state}**${byWhom(people, call.approval.decidedBy)}${call.approval.denyReason ? ` (${inertInline(call.approval.denyReason)})` : ""}`
    : "";
  const inputs = (call.inputs ?? []).map((input) => inputMarkdown(input, people)).join("");
  return (
    `<details><summary>🔧 ${summaryText(call.name)}${status}</summary>\n\n` +
    `Parameters:\n\n${fence(prettyJson(call.parameters), "json")}\n\nOutput:\n\n${fence(call.response)}${more}${approval}${inputs}\n\n</details>\n\n`
  );
}

/** A question the call asked, and how it ended: the answer's fields as JSON (a person's words, fenced). */
function inputMarkdown(input: InputRequest, people: ReadonlyMap<string, string>): string {
  const answer = input.state === "accepted" && input.content ? `\n\n${fence(JSON.stringify(input.content, null, 2), "json")}` : "";
  return `\n\nQuestion: ${inertInline(input.message)} — **${input.state}**${byWhom(people, input.answeredBy)}${input.note ? ` (${inertInline(input.note)})` : ""}${answer}`;
}

function subagentMarkdown(call: ToolCall, process: SubagentProcess, depth: number, people: ReadonlyMap<string, string>): string {
  const outcome =
    process.status === "success"
      ? "done"
      : process.status === "running"
        ? "running"
        : endReasonLabel(process.endReason ?? "failed").toLowerCase();
  const summary = `🤖 ${process.name}: ${truncateLine(process.task, 100)} (${outcome}, ${statsLine(process.stats)})`;
  let body = `**Task:** ${inertInline(process.task)}\n\n`;
  if (process.model) body += `Model: ${inertInline(process.model)}\n\n`;
  for (const steer of process.steering ?? []) body += `> **Steered before step ${steer.step + 1}:** ${inertInline(steer.message)}\n\n`;
  body += stepsMarkdown(process.steps, depth + 1, people);
  if (process.error) body += `**Error:** ${inertInline(process.error)}\n\n`;
  body += `<details><summary>Returned to the parent</summary>\n\n${fence(call.response)}\n\n</details>\n\n`;
  return `<details><summary>${summaryText(summary)}</summary>\n\n${body}</details>\n\n`;
}

function statsLine(stats: ChatTurn["stats"]): string {
  return `${formatDuration(stats.runtimeMs)} · ${stats.steps} step${stats.steps === 1 ? "" : "s"} · ${formatTokens(totalTokens(stats))} tokens · ${formatCost(stats.cost)}`;
}

function quoteBlock(text: string): string {
  return inertMarkdown(text.trim())
    .split("\n")
    .map((line) => `> ${line}`)
    .join("\n");
}

/** Text inside a `<summary>`: an HTML block, so Markdown is not read there, but one blank line would end it. */
function summaryText(text: string): string {
  return escapeHtml(text.replace(/\s+/g, " ").trim());
}

function truncateLine(text: string, max: number): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** How a turn that did not complete ended, in a word: a budget's stop is not a failure. */
function turnEndWord(turn: ChatTurn): string {
  if (turn.status === "cancelled") return "Stopped";
  return turn.endReason === "budget_exceeded" ? "Out of budget" : "Failed";
}
