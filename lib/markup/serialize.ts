import type { TurnStats } from "@/lib/contracts";
import { escapeMarkup } from "./escape";
import type { MessageDoc, PanelNode, ToolNode } from "./types";

/**
 * The canonical markup string of a message (seed 001 embeds it in the assistant message):
 * the master's text escaped verbatim, each tool call as `<ToolCall …/>`, and a call that
 * spawned a subagent as `<ToolCall …><SubagentExecution …>…nested calls…</SubagentExecution></ToolCall>`.
 * Attributes are written in a fixed order, optional ones only when present, and no
 * whitespace is added between elements, so equal docs give equal strings and
 * `parseMarkup` reads the exact doc back.
 */
export function serializeMarkup(doc: MessageDoc): string {
  let out = "";
  for (const segment of doc.segments) {
    out += segment.kind === "text" ? escapeMarkup(segment.text) : serializeTool(segment.call);
  }
  return out;
}

function serializeTool(tool: ToolNode): string {
  const attributes =
    attr("callId", tool.callId) +
    attr("name", tool.name) +
    attr("parameters", tool.parameters) +
    attr("status", tool.status) +
    attr("responseSize", String(tool.responseSize)) +
    attr("response", tool.response);
  if (!tool.subagent) return `<ToolCall${attributes}/>`;
  return `<ToolCall${attributes}>${serializePanel(tool.subagent)}</ToolCall>`;
}

function serializePanel(panel: PanelNode): string {
  const attributes =
    attr("runId", panel.runId) +
    optional("parentRunId", panel.parentRunId ?? undefined) +
    attr("depth", String(panel.depth)) +
    attr("name", panel.name) +
    attr("task", panel.task) +
    attr("status", panel.status) +
    attr("responseText", panel.responseText) +
    optional("thinking", panel.thinking) +
    optional("stats", panel.stats && statsJson(panel.stats)) +
    optional("endReason", panel.endReason) +
    optional("error", panel.error) +
    attr("startedAt", panel.startedAt) +
    optional("endedAt", panel.endedAt);
  return `<SubagentExecution${attributes}>${panel.toolCalls.map(serializeTool).join("")}</SubagentExecution>`;
}

/** Stats as JSON with a fixed key order, so the string does not depend on object history. */
function statsJson(stats: TurnStats): string {
  return JSON.stringify({
    chat: { inputTokens: stats.chat.inputTokens, outputTokens: stats.chat.outputTokens },
    system: { inputTokens: stats.system.inputTokens, outputTokens: stats.system.outputTokens },
    steps: stats.steps,
    runtimeMs: stats.runtimeMs,
    cost: stats.cost,
  });
}

function attr(name: string, value: string): string {
  return ` ${name}="${escapeMarkup(value)}"`;
}

function optional(name: string, value: string | undefined): string {
  return value === undefined ? "" : attr(name, value);
}
