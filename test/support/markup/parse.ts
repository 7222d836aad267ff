import { z } from "zod";
import {
  inputRequestSchema,
  approvalSchema,
  budgetSchema,
  definitionRefSchema,
  endReasonSchema,
  runStatusSchema,
  steerSchema,
  toolStatusSchema,
  turnStatsSchema,
  turnStatusSchema,
  type ChatTurn,
  type Step,
  type SubagentProcess,
  type ToolCall,
} from "@/lib/contracts";

/**
 * Reads the markup of `serializeTurn` back into the turn: the inverse the round-trip tests
 * and the benchmark's naive baseline need (the app itself never parses markup). Text runs
 * up to the next `<`, which after escaping can only start an element the serialiser wrote;
 * a `<` that starts anything else, a missing attribute or an invalid value is an error,
 * never silently read as a panel.
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

const ENTITY = /&(amp|lt|gt|quot|#39);/g;
const UNESCAPES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'" };

/** Inverse of `escapeMarkup` (lib/markup/escape.ts), in one pass: `&amp;lt;` becomes `&lt;`, never `<`. */
export function unescapeMarkup(text: string): string {
  return text.includes("&") ? text.replace(ENTITY, (_, name: string) => UNESCAPES[name]!) : text;
}

type Element = "Turn" | "Step" | "ToolCall" | "SubagentExecution";

const TEXT = /[^<]+/y;
const OPEN_TAG = /<(Turn|Step|ToolCall|SubagentExecution)((?:\s+[A-Za-z]+="[^"]*")*)\s*(\/?)>/y;
const CLOSE_TAG = /<\/(Turn|Step|ToolCall|SubagentExecution)>/y;
const ATTRIBUTE = /([A-Za-z]+)="([^"]*)"/g;
const DIGITS = /^\d+$/;

interface Cursor {
  input: string;
  at: number;
}

interface Opened {
  attrs: Map<string, string>;
  selfClosing: boolean;
  start: number;
}

export function parseTurnMarkup(markup: string): ChatTurn {
  const cursor: Cursor = { input: markup, at: 0 };
  const { attrs, start } = open(cursor, "Turn");
  const turn: ChatTurn = {
    turnId: required(attrs, "turnId", start),
    sessionId: required(attrs, "sessionId", start),
    prompt: required(attrs, "prompt", start),
    steps: parseSteps(cursor, "Turn"),
    stats: parseWith(turnStatsSchema, parseJson(required(attrs, "stats", start), start), "stats", start),
    status: parseWith(turnStatusSchema, required(attrs, "status", start), "status", start),
    createdAt: required(attrs, "createdAt", start),
  };
  setOptional(turn, "error", attrs.get("error"));
  setOptional(turn, "endedAt", attrs.get("endedAt"));
  setOptional(turn, "model", attrs.get("model"));
  const endReason = attrs.get("endReason");
  if (endReason !== undefined) turn.endReason = parseWith(endReasonSchema, endReason, "endReason", start);
  const budget = attrs.get("budget");
  if (budget !== undefined) turn.budget = withoutUndefined(parseWith(budgetSchema, parseJson(budget, start), "budget", start));
  const steering = attrs.get("steering");
  if (steering !== undefined) turn.steering = parseWith(steerSchema.array(), parseJson(steering, start), "steering", start);
  if (cursor.at !== markup.length) throw new MarkupParseError("Text after </Turn>", cursor.at);
  return turn;
}

/** Steps until the closing tag of `parent`, which is consumed. */
function parseSteps(cursor: Cursor, parent: Element): Step[] {
  const steps: Step[] = [];
  while (!peekClose(cursor)) {
    const { attrs, start } = open(cursor, "Step");
    const text = match(cursor, TEXT);
    const step: Step = { text: text ? unescapeMarkup(text[0]) : "", thinking: attrs.get("thinking") ?? "", toolCalls: [] };
    setOptional(step, "startedAt", attrs.get("startedAt"));
    setOptional(step, "endedAt", attrs.get("endedAt"));
    while (!peekClose(cursor)) {
      if (cursor.at >= cursor.input.length) throw new MarkupParseError("Unclosed <Step>", start);
      step.toolCalls.push(parseCall(cursor));
    }
    close(cursor, "Step");
    steps.push(step);
  }
  close(cursor, parent);
  return steps;
}

function parseCall(cursor: Cursor): ToolCall {
  const { attrs, selfClosing, start } = open(cursor, "ToolCall");
  const call: ToolCall = {
    callId: required(attrs, "callId", start),
    name: required(attrs, "name", start),
    parameters: required(attrs, "parameters", start),
    response: required(attrs, "response", start),
    responseSize: integer(attrs, "responseSize", start),
    status: parseWith(toolStatusSchema, required(attrs, "status", start), "status", start),
  };
  const approval = attrs.get("approval");
  if (approval !== undefined) call.approval = withoutUndefined(parseWith(approvalSchema, parseJson(approval, start), "approval", start));
  const inputs = attrs.get("inputs");
  if (inputs !== undefined)
    call.inputs = parseWith(z.array(inputRequestSchema), parseJson(inputs, start), "inputs", start).map((i) => withoutUndefined(i));
  setOptional(call, "startedAt", attrs.get("startedAt"));
  setOptional(call, "endedAt", attrs.get("endedAt"));
  if (selfClosing) return call;
  call.subagent = parseProcess(cursor);
  close(cursor, "ToolCall");
  return call;
}

function parseProcess(cursor: Cursor): SubagentProcess {
  const { attrs, selfClosing, start } = open(cursor, "SubagentExecution");
  if (selfClosing) throw new MarkupParseError("Malformed <SubagentExecution>", start);
  const process: SubagentProcess = {
    runId: required(attrs, "runId", start),
    parentRunId: attrs.get("parentRunId") ?? null,
    depth: integer(attrs, "depth", start),
    name: required(attrs, "name", start),
    task: required(attrs, "task", start),
    prompt: required(attrs, "prompt", start),
    steps: [],
    response: required(attrs, "response", start),
    stats: parseWith(turnStatsSchema, parseJson(required(attrs, "stats", start), start), "stats", start),
    status: parseWith(runStatusSchema, required(attrs, "status", start), "status", start),
    startedAt: required(attrs, "startedAt", start),
  };
  const endReason = attrs.get("endReason");
  if (endReason !== undefined) process.endReason = parseWith(endReasonSchema, endReason, "endReason", start);
  setOptional(process, "error", attrs.get("error"));
  setOptional(process, "endedAt", attrs.get("endedAt"));
  setOptional(process, "model", attrs.get("model"));
  setOptional(process, "retryOf", attrs.get("retryOf"));
  const steering = attrs.get("steering");
  if (steering !== undefined) process.steering = parseWith(steerSchema.array(), parseJson(steering, start), "steering", start);
  const definition = attrs.get("definition");
  if (definition !== undefined) process.definition = parseWith(definitionRefSchema, parseJson(definition, start), "definition", start);
  const budget = attrs.get("budget");
  if (budget !== undefined) process.budget = withoutUndefined(parseWith(budgetSchema, parseJson(budget, start), "budget", start));
  process.steps = parseSteps(cursor, "SubagentExecution");
  return process;
}

function open(cursor: Cursor, name: Element): Opened {
  const start = cursor.at;
  const found = match(cursor, OPEN_TAG);
  if (!found || found[1] !== name) throw new MarkupParseError(`Expected <${name}>`, start);
  if (found[3] === "/" && name !== "ToolCall") throw new MarkupParseError(`Malformed <${name}>`, start);
  return { attrs: attributes(found[2]!), selfClosing: found[3] === "/", start };
}

function peekClose(cursor: Cursor): boolean {
  return cursor.input.startsWith("</", cursor.at) || cursor.at >= cursor.input.length;
}

function close(cursor: Cursor, name: Element): void {
  const start = cursor.at;
  const found = match(cursor, CLOSE_TAG);
  if (!found || found[1] !== name) throw new MarkupParseError(`Expected </${name}>`, start);
}

function match(cursor: Cursor, pattern: RegExp): RegExpExecArray | null {
  pattern.lastIndex = cursor.at;
  const found = pattern.exec(cursor.input);
  if (found) cursor.at = pattern.lastIndex;
  return found;
}

/** Attribute values, unescaped; the first occurrence of a name wins. */
function attributes(source: string): Map<string, string> {
  const attrs = new Map<string, string>();
  for (const [, name, value] of source.matchAll(ATTRIBUTE)) {
    if (!attrs.has(name!)) attrs.set(name!, unescapeMarkup(value!));
  }
  return attrs;
}

/** zod keeps absent optional keys absent, but be explicit: a turn holds no `undefined` values. */
function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

function setOptional<T extends object, K extends keyof T>(target: T, key: K, value: T[K] | undefined): void {
  if (value !== undefined) target[key] = value;
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
    throw new MarkupParseError("Attribute is not JSON", position);
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
