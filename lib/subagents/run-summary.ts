import type { Steer, Step, SubagentProcess, ToolCall } from "@/lib/contracts";
import { SUBAGENT_TOOL_NAME } from "@/lib/agent/definitions";

/**
 * What a collapsed subagent panel says about its run, derived from the one turn shape:
 * how it ended (a person's stop is not a failure), what it is doing now, what it did,
 * and its outcome in one line. Pure, so each is tested alone and every view agrees.
 */

/**
 * How a run reads to a person: a kill or a cancelled turn is a neutral stop, not a
 * failure, and a run its budget stopped is out of budget (a limit reached, not a fault).
 */
export type RunOutcome = "running" | "succeeded" | "failed" | "stopped" | "timed_out" | "out_of_budget";

export function runOutcome(process: Pick<SubagentProcess, "status" | "endReason">): RunOutcome {
  if (process.status === "running") return "running";
  if (process.status === "success") return "succeeded";
  if (process.endReason === "killed") return "stopped";
  if (process.endReason === "watchdog_timeout") return "timed_out";
  if (process.endReason === "budget_exceeded") return "out_of_budget";
  return "failed";
}

export interface RunCounts {
  /** Tool calls made by the run and by every run below it (subagent calls excluded). */
  toolCalls: number;
  /** Runs spawned below it, at any depth. */
  subagents: number;
}

export function runCounts(process: Pick<SubagentProcess, "steps">, depthGuard = 0): RunCounts {
  const counts: RunCounts = { toolCalls: 0, subagents: 0 };
  for (const step of process.steps) {
    for (const call of step.toolCalls) {
      if (!call.subagent) {
        // A spawn whose run has not started (or was refused) is neither a tool call nor a subagent yet.
        if (call.name !== SUBAGENT_TOOL_NAME) counts.toolCalls++;
        continue;
      }
      counts.subagents++;
      if (depthGuard < 32) {
        const below = runCounts(call.subagent, depthGuard + 1);
        counts.toolCalls += below.toolCalls;
        counts.subagents += below.subagents;
      }
    }
  }
  return counts;
}

const PATH_LIKE = /^[\w.@~-]*[/.][\w./@~-]*$/;
const MAX_VALUE = 48;

/** `grep "bug" src/`: a call's name and its string arguments, paths bare, the rest quoted. */
export function callSummary(call: Pick<ToolCall, "name" | "parameters">): string {
  let args: unknown;
  try {
    args = JSON.parse(call.parameters);
  } catch {
    return call.name;
  }
  if (!args || typeof args !== "object" || Array.isArray(args)) return call.name;
  const parts = Object.values(args)
    .filter((v): v is string => typeof v === "string" && v.trim() !== "")
    .slice(0, 2)
    .map((v) => {
      const value = clip(oneLine(v), MAX_VALUE);
      return PATH_LIKE.test(value) ? value : JSON.stringify(value);
    });
  return [call.name, ...parts].join(" ");
}

/**
 * The run's current step in one line: the call it waits on (a nested run's own status,
 * after its name), a call waiting for approval, a steer it has yet to answer, or whether
 * its model is writing or thinking. Empty once the run has ended.
 */
export function liveStatus(process: SubagentProcess, depthGuard = 0): string {
  if (process.status !== "running") return "";
  const step: Step | undefined = process.steps.at(-1);
  const lastSteer: Steer | undefined = process.steering?.at(-1);
  if (lastSteer && lastSteer.step >= process.steps.length - (stepIsEmpty(step) ? 1 : 0)) {
    return `steered: ${JSON.stringify(clip(oneLine(lastSteer.message), MAX_VALUE))}`;
  }
  if (!step) return "starting…";
  const running = step.toolCalls.filter((c) => c.status === "running");
  const waiting = running.find((c) => c.approval?.state === "pending");
  if (waiting) return `waiting for approval: ${callSummary(waiting)}`;
  const nested = running.find((c) => c.subagent?.status === "running");
  if (nested?.subagent && depthGuard < 8) {
    const inner = liveStatus(nested.subagent, depthGuard + 1);
    return inner ? `${nested.subagent.name} › ${inner}` : nested.subagent.name;
  }
  const call = running.at(-1);
  if (call) return running.length > 1 ? `${callSummary(call)} (+${running.length - 1} more)` : callSummary(call);
  if (step.toolCalls.length > 0) return "reading results…";
  if (step.text) return "writing…";
  return "thinking…";
}

function stepIsEmpty(step: Step | undefined): boolean {
  return !step || (step.text === "" && step.thinking === "" && step.toolCalls.length === 0);
}

/** How the run ended, in one line: its answer's first line, or why it stopped or failed. */
export function outcomeLine(process: SubagentProcess): string {
  if (process.status === "running") return "";
  if (process.status === "success") return firstLine(process.response) || "Answered with no text.";
  return firstLine(process.error ?? "") || (runOutcome(process) === "stopped" ? "Stopped." : "Failed.");
}

const HEADING = /^#{1,6}\s+/;
const QUOTE = /^>\s?/;
const BULLET = /^(?:[-*+]|\d+[.)])\s+/;
const FENCE = /^(?:```|~~~)/;
const EMPHASIS = /(\*\*|__|\*|_|`)(?=\S)([^*_`]*?\S)\1/g;
const LINK = /!?\[([^\]]*)\]\([^)]*\)/g;

/** The first line of a markdown text that says something, as plain words (code blocks, rules and table rules skipped). */
export function firstLine(markdown: string): string {
  let fenced = false;
  for (const raw of markdown.split("\n")) {
    const line = raw.trim();
    if (FENCE.test(line)) fenced = !fenced;
    if (fenced || !line || FENCE.test(line) || /^[-*_=]{3,}$/.test(line) || /^\|?[\s:|-]+\|?$/.test(line)) continue;
    const plain = line.replace(HEADING, "").replace(QUOTE, "").replace(BULLET, "").replace(LINK, "$1").replace(EMPHASIS, "$2").trim();
    if (plain) return plain;
  }
  return "";
}

/** One entry of a panel's sequence: a step, or a person's steer placed before the step that read it. */
export type SequenceEntry = { kind: "step"; index: number } | { kind: "steer"; steer: Steer; index: number };

/**
 * The panel's steps with each steer before the step that first read it; steers not yet
 * read (the run is between steps, or ended first) come last.
 */
export function panelSequence(process: Pick<SubagentProcess, "steps" | "steering">): SequenceEntry[] {
  const steering = process.steering ?? [];
  const out: SequenceEntry[] = [];
  let next = 0;
  for (let i = 0; i < process.steps.length; i++) {
    while (next < steering.length && steering[next]!.step <= i) out.push({ kind: "steer", steer: steering[next]!, index: next++ });
    out.push({ kind: "step", index: i });
  }
  while (next < steering.length) out.push({ kind: "steer", steer: steering[next]!, index: next++ });
  return out;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
