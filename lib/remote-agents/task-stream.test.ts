import { describe, expect, it } from "vitest";
import { RemoteTaskFold, type FoldLimits } from "./task-stream";
import type { RemoteUpdate } from "./transport";

/** What a panel would show: each step's text, whether it ended, and the order of what happened. */
function fold(updates: RemoteUpdate[], limits?: FoldLimits) {
  const steps: { text: string; ended: boolean }[] = [];
  const log: string[] = [];
  const f = new RemoteTaskFold(
    {
      stepStart: (step) => {
        steps[step] = { text: "", ended: false };
        log.push(`start ${step}`);
      },
      text: (step, offset, text) => {
        expect(offset).toBe(steps[step]!.text.length);
        steps[step]!.text += text;
      },
      stepEnd: (count) => {
        steps[count - 1]!.ended = true;
        log.push(`end ${count - 1}`);
      },
    },
    limits,
  );
  for (const u of updates) f.apply(u);
  return { steps, log, outcome: f.ended(), fold: f };
}

const ids = { taskId: "t1", contextId: "c1" };
const status = (
  state: RemoteUpdate & { kind: "status" } extends infer S ? (S extends { state: infer T } ? T : never) : never,
  text?: string,
): RemoteUpdate => ({
  kind: "status",
  ...ids,
  state,
  final: false,
  ...(text ? { text } : {}),
});
const chunk = (artifactId: string, text: string, append: boolean, lastChunk: boolean, name?: string): RemoteUpdate => ({
  kind: "artifact",
  taskId: "t1",
  artifact: { artifactId, text, ...(name ? { name } : {}) },
  append,
  lastChunk,
});

describe("a remote task, folded into a run's steps and answer", () => {
  it("shows each status message as a step and streams an artifact into a step of its own, which is the answer", () => {
    const { steps, outcome, log } = fold([
      { kind: "task", ...ids, state: "submitted", artifacts: [] },
      status("working", "Reading the data"),
      status("working", "Summarising"),
      chunk("a1", "Sales rose ", false, false, "report"),
      chunk("a1", "12%.", true, true),
      status("completed"),
    ]);
    expect(steps).toEqual([
      { text: "Reading the data", ended: true },
      { text: "Summarising", ended: true },
      { text: "**report**\n\nSales rose 12%.", ended: true },
    ]);
    expect(log).toEqual(["start 0", "end 0", "start 1", "end 1", "start 2", "end 2"]);
    expect(outcome).toEqual({ kind: "completed", answer: "Sales rose 12%." });
  });

  it.each([
    [
      "several artifacts: each under its name",
      [chunk("a", "A", false, true, "first"), chunk("b", "B", false, true), status("completed")],
      "## first\n\nA\n\n## Artifact 2\n\nB",
    ],
    [
      "no artifact: the last message",
      [status("working", "Looking"), { kind: "message", ...ids, text: "It is 42." } as RemoteUpdate, status("completed")],
      "It is 42.",
    ],
    ["the completing status message, when it is all there is", [status("completed", "Done: 7 rows")], "Done: 7 rows"],
    ["a message with no task at all", [{ kind: "message", text: "Hello from afar" } as RemoteUpdate], "Hello from afar"],
    [
      "a task that arrives whole with its artifacts",
      [{ kind: "task", ...ids, state: "completed", artifacts: [{ artifactId: "x", text: "whole" }] } as RemoteUpdate],
      "whole",
    ],
  ])("answers with %s", (_name, updates, answer) => {
    expect(fold(updates as RemoteUpdate[]).outcome).toEqual({ kind: "completed", answer });
  });

  it.each([
    [
      "failed, with the remote's reason",
      [status("working", "Trying"), status("failed", "The warehouse is offline")],
      { kind: "failed", message: "The warehouse is offline" },
    ],
    [
      "rejected without a reason",
      [status("rejected")],
      { kind: "failed", message: "The remote agent rejected the task without saying why." },
    ],
    ["canceled", [status("canceled")], { kind: "canceled" }],
    [
      "paused for input, with the question",
      [status("input-required", "Which region?")],
      { kind: "input-required", question: "Which region?" },
    ],
    [
      "a stream that closes mid-task",
      [status("working", "Half way")],
      { kind: "failed", message: "The remote agent closed its stream before the task finished." },
    ],
  ])("ends %s", (_name, updates, outcome) => {
    expect(fold(updates as RemoteUpdate[]).outcome).toEqual(outcome);
  });

  it("a question's answer resumes the same run: its steps continue where they were", () => {
    const { fold: f, steps } = fold([status("working", "Asking"), status("input-required", "Which region?")]);
    f.resume();
    // The answer's stream opens with the task as it was, still waiting: that does not pause it again.
    f.apply({ kind: "task", ...ids, state: "input-required", artifacts: [] });
    f.apply(status("working"));
    f.apply(chunk("r", "Sales in EMEA: 42", false, true));
    f.apply(status("completed"));
    expect(f.ended()).toEqual({ kind: "completed", answer: "Sales in EMEA: 42" });
    expect(steps.map((s) => s.text)).toEqual(["Asking", "Which region?", "Sales in EMEA: 42"]);
  });

  it("bounds what a hostile remote can make it hold: the answer, a message, the number of steps", () => {
    const limits = { maxAnswerChars: 10, maxMessageChars: 5, maxSteps: 3 };
    expect(fold([chunk("a", "0123456789", false, false), chunk("a", "X", true, false)], limits).outcome).toEqual({
      kind: "limit",
      message: "The remote agent sent more than 10 characters of artifacts.",
    });
    expect(fold([status("working", "abcdefgh")], limits).steps[0]!.text).toBe("abcde\n\n[… cut: 8 characters]");
    const endless = fold(
      Array.from({ length: 10 }, (_, i) => status("working", `update ${i}`)),
      limits,
    );
    expect(endless.outcome).toEqual({ kind: "limit", message: "The remote agent sent more than 3 updates for one task." });
    expect(endless.steps).toHaveLength(3);
  });

  it("ignores what arrives after it stopped, and replaced artifact text is not counted twice", () => {
    const limits = { maxAnswerChars: 10, maxMessageChars: 100, maxSteps: 100 };
    const { outcome } = fold([chunk("a", "0123456789", false, true), chunk("a", "abcdefghij", false, true), status("completed")], limits);
    expect(outcome).toEqual({ kind: "completed", answer: "abcdefghij" });
    const late = fold([status("canceled"), status("working", "still here")]);
    expect(late.outcome).toEqual({ kind: "canceled" });
  });
});
