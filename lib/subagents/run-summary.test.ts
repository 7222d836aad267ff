import { describe, expect, it } from "vitest";
import type { Step, SubagentProcess, ToolCall } from "@/lib/contracts";
import { finishedProcess } from "@/test/support/turn/event-builders";
import { callSummary, firstLine, liveStatus, outcomeLine, panelSequence, runCounts, runOutcome } from "./run-summary";

const call = (name: string, args: object, extra: Partial<ToolCall> = {}): ToolCall => ({
  callId: `c-${name}`,
  name,
  parameters: JSON.stringify(args),
  response: "",
  responseSize: 0,
  status: "running",
  ...extra,
});
const step = (extra: Partial<Step> = {}): Step => ({ text: "", thinking: "", toolCalls: [], ...extra });
const running = (steps: Step[], extra: Partial<SubagentProcess> = {}): SubagentProcess =>
  finishedProcess("r1", "", { status: "running", endReason: undefined, endedAt: undefined, steps, ...extra });

describe("runOutcome", () => {
  const table: [Partial<SubagentProcess>, string][] = [
    [{ status: "running" }, "running"],
    [{ status: "success", endReason: "completed" }, "succeeded"],
    [{ status: "error", endReason: "killed" }, "stopped"],
    [{ status: "error", endReason: "watchdog_timeout" }, "timed_out"],
    [{ status: "error", endReason: "failed" }, "failed"],
    [{ status: "error", endReason: "ghost_sweep" }, "failed"],
    [{ status: "error" }, "failed"],
  ];
  it.each(table)("%o reads as %s", (p, expected) => {
    expect(runOutcome(p as SubagentProcess)).toBe(expected);
  });
});

describe("callSummary", () => {
  const table: [string, string, string][] = [
    ["grep", JSON.stringify({ pattern: "bug", path: "src/" }), 'grep "bug" src/'],
    ["file_read", JSON.stringify({ path: "docs/plan.md" }), "file_read docs/plan.md"],
    ["list_files", "{}", "list_files"],
    ["grep", "not json", "grep"],
    ["grep", JSON.stringify({ pattern: "a\nb  c", n: 3 }), 'grep "a b c"'],
    ["grep", JSON.stringify({ pattern: "x".repeat(80) }), `grep "${"x".repeat(47)}…"`],
  ];
  it.each(table)("%s %s → %s", (name, parameters, expected) => {
    expect(callSummary({ name, parameters })).toBe(expected);
  });
});

describe("liveStatus", () => {
  const nested = running([step({ toolCalls: [call("file_read", { path: "a.md" })] })], { runId: "r2", name: "reader" });
  const table: [string, SubagentProcess, string][] = [
    ["no step yet", running([]), "starting…"],
    ["reasoning", running([step({ thinking: "hm" })]), "thinking…"],
    ["writing its answer", running([step({ text: "The" })]), "writing…"],
    [
      "a call in flight",
      running([step({ text: "Let me look.", toolCalls: [call("grep", { pattern: "bug", path: "src/" })] })]),
      'grep "bug" src/',
    ],
    [
      "two calls in flight",
      running([step({ toolCalls: [call("grep", { pattern: "a" }), { ...call("file_read", { path: "b.md" }), callId: "x" }] })]),
      "file_read b.md (+1 more)",
    ],
    ["calls done, next step not begun", running([step({ toolCalls: [call("grep", {}, { status: "success" })] })]), "reading results…"],
    [
      "waiting for approval",
      running([
        step({ toolCalls: [call("file_edit", { path: "a.md" }, { approval: { state: "pending", requestedAt: "t", reason: "r" } })] }),
      ]),
      "waiting for approval: file_edit a.md",
    ],
    [
      "a nested run working",
      running([step({ toolCalls: [call("subagent", { task: "read" }, { subagent: nested })] })]),
      "reader › file_read a.md",
    ],
    [
      "a steer not yet answered",
      running([step({ text: "done" })], { steering: [{ step: 1, message: "focus on dates", at: "t" }] }),
      'steered: "focus on dates"',
    ],
    [
      "a steer already answered",
      running([step(), step({ text: "Dates:" })], { steering: [{ step: 1, message: "dates", at: "t" }] }),
      "writing…",
    ],
    ["ended", finishedProcess("r1", "x"), ""],
  ];
  it.each(table)("%s → %s", (_name, process, expected) => {
    expect(liveStatus(process)).toBe(expected);
  });
});

describe("outcomeLine and firstLine", () => {
  const lines: [string, string][] = [
    ["## Found **3** bugs\n\nmore", "Found 3 bugs"],
    ["\n\n- `parse()` fails on [empty](http://x) input", "parse() fails on empty input"],
    ["```py\ncode\n```\nAfter code", "After code"],
    ["| a | b |\n|---|---|\n| 1 | 2 |", "| a | b |"],
    ["", ""],
  ];
  it.each(lines)("firstLine(%j) = %j", (text, expected) => {
    expect(firstLine(text)).toBe(expected);
  });

  it("says the answer's first line, or why the run ended", () => {
    expect(outcomeLine(finishedProcess("r1", "**Three** open bugs.\nDetails…"))).toBe("Three open bugs.");
    expect(outcomeLine(finishedProcess("r1", "", { status: "error", endReason: "killed", error: "Killed before it finished." }))).toBe(
      "Killed before it finished.",
    );
    expect(outcomeLine(finishedProcess("r1", "", { status: "error", endReason: "killed" }))).toBe("Stopped.");
    expect(outcomeLine(running([]))).toBe("");
  });
});

describe("runCounts", () => {
  it("counts tool calls and subagents through the whole tree below a run", () => {
    const grandchild = running([step({ toolCalls: [call("grep", {}), call("file_read", {})] })]);
    const child = running([step({ toolCalls: [call("list_files", {}), call("subagent", {}, { subagent: grandchild })] })]);
    const refused = { ...call("subagent", {}), callId: "refused", status: "error" as const };
    const root = running([
      step({ toolCalls: [call("grep", {})] }),
      step({ toolCalls: [call("subagent", {}, { subagent: child }), call("subagent", {}, { subagent: running([]) }), refused] }),
    ]);
    expect(runCounts(root)).toEqual({ toolCalls: 4, subagents: 3 });
    expect(runCounts(running([]))).toEqual({ toolCalls: 0, subagents: 0 });
  });
});

describe("panelSequence", () => {
  const s = (step: number) => ({ step, message: `m${step}`, at: "t" });
  const table: [string, number, ReturnType<typeof s>[], string][] = [
    ["no steers", 2, [], "S0 S1"],
    ["a steer read by step 1", 2, [s(1)], "S0 m1 S1"],
    ["two steers read by one step", 3, [s(2), s(2)], "S0 S1 m2 m2 S2"],
    ["a steer not yet read", 1, [s(1)], "S0 m1"],
    ["a steer before any step", 0, [s(0)], "m0"],
  ];
  it.each(table)("%s", (_name, steps, steering, expected) => {
    const seq = panelSequence({ steps: Array.from({ length: steps }, () => step()), steering });
    expect(seq.map((e) => (e.kind === "step" ? `S${e.index}` : e.steer.message)).join(" ")).toBe(expected);
  });
});
