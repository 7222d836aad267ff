import type { Approval, Budget, ChatTurn, InputRequest, Steer, Step, SubagentProcess, ToolCall, TurnStats } from "@/lib/contracts";
import { escapeMarkup } from "./escape";

/**
 * The `<SubagentExecution>` markup as a serialisation of the turn tree, for export and for
 * readers of that format — never a second state: `<Turn>` holds `<Step>`s; a step holds its text
 * (escaped verbatim) and then its `<ToolCall>`s; a call that spawned a subagent holds its
 * `<SubagentExecution>` panel, whose own steps nest the same way. Attributes come in a
 * fixed order, optional ones only when present, with no whitespace between elements, so
 * equal turns give equal strings and `parseTurnMarkup` reads the exact turn back.
 */
export function serializeTurn(turn: ChatTurn): string {
  const attributes =
    attr("turnId", turn.turnId) +
    attr("sessionId", turn.sessionId) +
    attr("prompt", turn.prompt) +
    attr("status", turn.status) +
    attr("stats", statsJson(turn.stats)) +
    optional("error", turn.error) +
    attr("createdAt", turn.createdAt) +
    optional("endedAt", turn.endedAt) +
    optional("model", turn.model) +
    optional("endReason", turn.endReason) +
    optional("budget", turn.budget && budgetJson(turn.budget)) +
    optional("steering", turn.steering && steeringJson(turn.steering));
  return `<Turn${attributes}>${serializeSteps(turn.steps)}</Turn>`;
}

function serializeSteps(steps: readonly Step[]): string {
  let out = "";
  for (const step of steps) {
    out += `<Step${step.thinking ? attr("thinking", step.thinking) : ""}${optional("startedAt", step.startedAt)}${optional("endedAt", step.endedAt)}>${escapeMarkup(step.text)}`;
    out += `${step.toolCalls.map(serializeCall).join("")}</Step>`;
  }
  return out;
}

function serializeCall(call: ToolCall): string {
  const attributes =
    attr("callId", call.callId) +
    attr("name", call.name) +
    attr("parameters", call.parameters) +
    attr("status", call.status) +
    attr("responseSize", String(call.responseSize)) +
    attr("response", call.response) +
    optional("approval", call.approval && approvalJson(call.approval)) +
    optional("inputs", call.inputs && inputsJson(call.inputs)) +
    optional("startedAt", call.startedAt) +
    optional("endedAt", call.endedAt);
  if (!call.subagent) return `<ToolCall${attributes}/>`;
  return `<ToolCall${attributes}>${serializeProcess(call.subagent)}</ToolCall>`;
}

function serializeProcess(process: SubagentProcess): string {
  const attributes =
    attr("runId", process.runId) +
    optional("parentRunId", process.parentRunId ?? undefined) +
    attr("depth", String(process.depth)) +
    attr("name", process.name) +
    attr("task", process.task) +
    attr("prompt", process.prompt) +
    attr("status", process.status) +
    attr("response", process.response) +
    attr("stats", statsJson(process.stats)) +
    optional("endReason", process.endReason) +
    optional("error", process.error) +
    attr("startedAt", process.startedAt) +
    optional("endedAt", process.endedAt) +
    optional("model", process.model) +
    optional("retryOf", process.retryOf) +
    optional("steering", process.steering && steeringJson(process.steering)) +
    optional("definition", process.definition && JSON.stringify({ id: process.definition.id, version: process.definition.version })) +
    optional("budget", process.budget && budgetJson(process.budget));
  return `<SubagentExecution${attributes}>${serializeSteps(process.steps)}</SubagentExecution>`;
}

/** An approval as JSON with a fixed key order; absent optional fields stay absent. */
function approvalJson(a: Approval): string {
  const { state, requestedAt, reason, preview, decidedAt, decidedBy, denyReason, note } = a;
  return JSON.stringify({ state, requestedAt, reason, preview, decidedAt, decidedBy, denyReason, note });
}

/** A call's questions as JSON, each with a fixed key order; absent optional fields stay absent. */
function inputsJson(inputs: readonly InputRequest[]): string {
  return JSON.stringify(
    inputs.map(({ state, requestedAt, message, form, answeredAt, answeredBy, content, note }) => ({
      state,
      requestedAt,
      message,
      form,
      answeredAt,
      answeredBy,
      content,
      note,
    })),
  );
}

/** A budget as JSON, tokens before dollars; an absent limit stays absent. */
function budgetJson({ tokens, usd }: Budget): string {
  return JSON.stringify({ tokens, usd });
}

/** Steering messages as JSON, each with a fixed key order. */
function steeringJson(steering: readonly Steer[]): string {
  return JSON.stringify(steering.map(({ step, message, at }) => ({ step, message, at })));
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
