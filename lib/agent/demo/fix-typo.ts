import type { ChatMessage } from "@/lib/model/types";
import { SUBAGENT_TOOL_NAME } from "../definitions";
import { narrativeBody, parseGrep } from "./parse-tool-output";
import { citeResult, type SpawnedCall } from "./synthesis";

/**
 * The demo's "fix the typo" playbook, which shows human approval at depth 2: the master
 * hands the fix to a `general` subagent, which hands it to another `general` (the one at
 * the deepest level may not spawn, so it does the work); that one greps for known
 * misspellings, and asks to `file_edit` the line — a call a person must approve. Its
 * answer says what happened: fixed, or denied (with the person's reason), or expired.
 */

/** Misspellings the demo knows, with their corrections. */
const MISSPELLINGS: Record<string, string> = {
  recieve: "receive",
  seperate: "separate",
  occured: "occurred",
  definately: "definitely",
  teh: "the",
  wich: "which",
  untill: "until",
};
const MISSPELLED = new RegExp(`\\b(${Object.keys(MISSPELLINGS).join("|")})\\b`);
const FIX_TASK = /\bfix\b[^\n]*\btypos?\b|\btypos?\b[^\n]*\bfix\b/i;
const FILE_NAME = /(?:^|\s|`|")((?:[\w.-]+\/)*[\w-]+\.(?:md|txt|py|toml|csv|rst))\b/;

type ToolMessage = Extract<ChatMessage, { role: "tool" }>;
export interface FixReply {
  thinking?: string;
  text?: string;
  toolCalls?: { name: string; args: Record<string, unknown> }[];
}

export function isFixTask(text: string): boolean {
  return FIX_TASK.test(text);
}

function fileIn(text: string): string | undefined {
  return FILE_NAME.exec(text)?.[1];
}

/** The master: one `general` gets the fix, then the master reports what it returned, citing it. */
export function masterFix(prompt: string, results: readonly ToolMessage[], calls: ReadonlyMap<string, SpawnedCall> = new Map()): FixReply {
  if (results.length > 0) return { text: citeResult(results[0]!, calls.get(results[0]!.toolCallId)).line };
  const file = fileIn(prompt);
  return {
    text: "Changing a file needs care, so I'm handing this to a `general` subagent. Any edit waits for your approval.\n\n",
    toolCalls: [
      { name: SUBAGENT_TOOL_NAME, args: { agent: "general", task: `Fix the typo in ${file ?? "the workspace"}`, objective: prompt } },
    ],
  };
}

/** A general that may spawn: passes the fix one level down, then reports its result. */
export function delegateFix(task: string, results: readonly ToolMessage[]): FixReply {
  if (results.length > 0) return { text: resultBody(results[0]!) };
  return {
    thinking: "An editor subagent can find the misspelling and propose the edit; I only coordinate.",
    toolCalls: [
      {
        name: SUBAGENT_TOOL_NAME,
        args: { agent: "general", task: `Find and fix the typo in ${fileIn(task) ?? "the workspace"}`, objective: task },
      },
    ],
  };
}

/** The agent that edits: grep for known misspellings, ask to edit the line, report. */
export function editFix(task: string, results: readonly ToolMessage[]): FixReply {
  const file = fileIn(task);
  const edit = results.find((r) => r.toolName === "file_edit");
  if (edit) {
    if (edit.content.startsWith("Error ["))
      return { text: `The edit was not made. ${edit.content.replace(/^Error \[[a-z_]+\]: /, "")} I left the file unchanged.` };
    return { text: `Done: ${edit.content}` };
  }
  const grep = results.find((r) => r.toolName === "grep");
  if (!grep) {
    return {
      text: `I'll look for a misspelling in ${file ?? "the workspace"} first.`,
      toolCalls: [{ name: "grep", args: { pattern: MISSPELLED.source, path: file ?? ".", maxMatches: 20 } }],
    };
  }
  for (const hit of parseGrep(grep.content)) {
    const word = MISSPELLED.exec(hit.text)?.[1];
    if (!word || hit.text.includes("…")) continue;
    const fixed = MISSPELLINGS[word]!;
    return {
      text: `Line ${hit.line} of ${hit.path} says "${word}"; it should be "${fixed}". I'd like to correct that word.`,
      toolCalls: [{ name: "file_edit", args: { path: hit.path, old_string: hit.text, new_string: hit.text.replace(MISSPELLED, fixed) } }],
    };
  }
  return { text: `I found none of the misspellings I know in ${file ?? "the workspace"}; nothing to fix.` };
}

function resultBody(result: ToolMessage): string {
  return result.content.startsWith("[Subagent Result:") ? narrativeBody(result.content).body : result.content;
}
