import { endReasonSchema, runStatusSchema, toolStatusSchema, turnStatsSchema } from "@/lib/contracts";
import { indexRuns } from "./doc-path";
import { unescapeMarkup } from "./escape";
import type { MessageDoc, PanelNode, Segment, ToolNode } from "./types";

/**
 * Reads the canonical markup (see `serializeMarkup`) back into a doc. Text runs up to
 * the next `<`, which after escaping can only start an element the serializer wrote; a
 * `<` that starts anything else, a missing attribute or an invalid value is an error,
 * never silently shown as a panel. `turnId` is not part of the markup; pass it to get a
 * doc that equals the one serialised.
 */
export class MarkupParseError extends Error {
  constructor(
    message: string,
    readonly position: number,
  ) {
    super(`${message} at ${position}`);
    this.name = "MarkupParseError";
  }
}

const TEXT = /[^<]+/y;
const OPEN_TAG = /<(ToolCall|SubagentExecution)((?:\s+[A-Za-z]+="[^"]*")*)\s*(\/?)>/y;
const CLOSE_TAG = /<\/(ToolCall|SubagentExecution)>/y;
const ATTRIBUTE = /([A-Za-z]+)="([^"]*)"/g;
const WHITESPACE = /\s*/y;
const DIGITS = /^\d+$/;

interface Cursor {
  input: string;
  at: number;
}

export function parseMarkup(markup: string, turnId = ""): MessageDoc {
  const cursor: Cursor = { input: markup, at: 0 };
  const segments: Segment[] = [];
  let textLength = 0;
  while (cursor.at < markup.length) {
    const text = match(cursor, TEXT);
    if (text) {
      const value = unescapeMarkup(text[0]);
      const last = segments[segments.length - 1];
      if (last?.kind === "text") segments[segments.length - 1] = { kind: "text", text: last.text + value };
      else segments.push({ kind: "text", text: value });
      textLength += value.length;
      continue;
    }
    segments.push({ kind: "tool", call: parseTool(cursor) });
  }
  return { turnId, segments, textLength, runs: indexRuns(segments) };
}

function parseTool(cursor: Cursor): ToolNode {
  const start = cursor.at;
  const open = match(cursor, OPEN_TAG);
  if (!open || open[1] !== "ToolCall") throw new MarkupParseError("Expected <ToolCall>", start);
  const attrs = attributes(open[2]!);
  const tool: ToolNode = {
    callId: required(attrs, "callId", start),
    name: required(attrs, "name", start),
    parameters: required(attrs, "parameters", start),
    response: required(attrs, "response", start),
    responseSize: integer(attrs, "responseSize", start),
    status: parseWith(toolStatusSchema, required(attrs, "status", start), "status", start),
  };
  if (open[3] === "/") return tool;
  match(cursor, WHITESPACE);
  if (cursor.input.startsWith("<SubagentExecution", cursor.at)) {
    tool.subagent = parsePanel(cursor);
    match(cursor, WHITESPACE);
  }
  expectClose(cursor, "ToolCall");
  return tool;
}

function parsePanel(cursor: Cursor): PanelNode {
  const start = cursor.at;
  const open = match(cursor, OPEN_TAG);
  if (!open || open[1] !== "SubagentExecution" || open[3] === "/") {
    throw new MarkupParseError("Malformed <SubagentExecution>", start);
  }
  const attrs = attributes(open[2]!);
  const panel: PanelNode = {
    runId: required(attrs, "runId", start),
    parentRunId: attrs.get("parentRunId") ?? null,
    depth: integer(attrs, "depth", start),
    name: required(attrs, "name", start),
    task: required(attrs, "task", start),
    status: parseWith(runStatusSchema, required(attrs, "status", start), "status", start),
    responseText: required(attrs, "responseText", start),
    toolCalls: [],
    startedAt: required(attrs, "startedAt", start),
  };
  const thinking = attrs.get("thinking");
  if (thinking !== undefined) panel.thinking = thinking;
  const stats = attrs.get("stats");
  if (stats !== undefined) panel.stats = parseWith(turnStatsSchema, parseJson(stats, start), "stats", start);
  const endReason = attrs.get("endReason");
  if (endReason !== undefined) panel.endReason = parseWith(endReasonSchema, endReason, "endReason", start);
  const error = attrs.get("error");
  if (error !== undefined) panel.error = error;
  const endedAt = attrs.get("endedAt");
  if (endedAt !== undefined) panel.endedAt = endedAt;
  match(cursor, WHITESPACE);
  while (!cursor.input.startsWith("</", cursor.at)) {
    if (cursor.at >= cursor.input.length) throw new MarkupParseError("Unclosed <SubagentExecution>", start);
    panel.toolCalls.push(parseTool(cursor));
    match(cursor, WHITESPACE);
  }
  expectClose(cursor, "SubagentExecution");
  return panel;
}

function match(cursor: Cursor, pattern: RegExp): RegExpExecArray | null {
  pattern.lastIndex = cursor.at;
  const found = pattern.exec(cursor.input);
  if (found) cursor.at = pattern.lastIndex;
  return found;
}

function expectClose(cursor: Cursor, name: string): void {
  const start = cursor.at;
  const close = match(cursor, CLOSE_TAG);
  if (!close || close[1] !== name) throw new MarkupParseError(`Expected </${name}>`, start);
}

/** Attribute values, unescaped; the first occurrence of a name wins. */
function attributes(source: string): Map<string, string> {
  const attrs = new Map<string, string>();
  for (const [, name, value] of source.matchAll(ATTRIBUTE)) {
    if (!attrs.has(name!)) attrs.set(name!, unescapeMarkup(value!));
  }
  return attrs;
}

function required(attrs: Map<string, string>, name: string, position: number): string {
  const value = attrs.get(name);
  if (value === undefined) throw new MarkupParseError(`Missing attribute ${name}`, position);
  return value;
}

function integer(attrs: Map<string, string>, name: string, position: number): number {
  const value = required(attrs, name, position);
  if (!DIGITS.test(value)) throw new MarkupParseError(`Attribute ${name} is not a count`, position);
  return Number(value);
}

function parseJson(text: string, position: number): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new MarkupParseError("Attribute stats is not JSON", position);
  }
}

function parseWith<T>(
  schema: { safeParse(value: unknown): { success: true; data: T } | { success: false } },
  value: unknown,
  name: string,
  position: number,
): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new MarkupParseError(`Invalid ${name}`, position);
  return parsed.data;
}
