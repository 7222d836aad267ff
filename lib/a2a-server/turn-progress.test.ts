import { describe, expect, it } from "vitest";
import type { AgentEvent } from "@/lib/contracts";
import { listedSkills } from "./agent-card";
import { TurnFollower } from "./turn-progress";

const at = "2026-01-01T00:00:00.000Z";
const stats = { chat: { inputTokens: 0, outputTokens: 0 }, system: { inputTokens: 0, outputTokens: 0 }, steps: 0, runtimeMs: 0, cost: 0 };
const run = { runId: "r1", parentRunId: null, depth: 1 };

/** A turn in which the master delegates to explore, which asks to write a file, then the master answers in two steps. */
const events: AgentEvent[] = [
  { type: "turn:started", turnId: "t1", prompt: "go", createdAt: at },
  { type: "turn:data", turnId: "t1", runId: null, data: { kind: "tool_call", step: 0, callId: "c1", name: "subagent", parameters: "{}" } },
  {
    type: "subagent_started",
    turnId: "t1",
    ...run,
    callId: "c1",
    name: "explore",
    task: "read\n  every   file",
    prompt: "",
    startedAt: at,
  },
  { type: "subagent_data", turnId: "t1", ...run, data: { kind: "tool_call", step: 0, callId: "w1", name: "file_write", parameters: "{}" } },
  {
    type: "subagent_data",
    turnId: "t1",
    ...run,
    data: { kind: "approval", callId: "w1", approval: { state: "pending", requestedAt: at, reason: "" } },
  },
  {
    type: "subagent_data",
    turnId: "t1",
    ...run,
    data: { kind: "approval", callId: "w1", approval: { state: "approved", requestedAt: at, reason: "" } },
  },
  { type: "subagent_completed", turnId: "t1", ...run, response: "done", stats, endReason: "completed", endedAt: at },
  { type: "turn:data", turnId: "t1", runId: null, data: { kind: "token", step: 1, offset: 0, text: "The answer." } },
  { type: "turn:data", turnId: "other", runId: null, data: { kind: "token", step: 1, offset: 0, text: "Not this turn." } },
  { type: "turn:ended", turnId: "t1", status: "completed", stats, endedAt: at },
];

describe("TurnFollower", () => {
  it("tells a caller each subagent's start and end, each approval wait, and the master's last answer", () => {
    const follower = new TurnFollower("s1", "t1");
    expect(events.flatMap((e) => follower.next(e))).toEqual([
      { kind: "status", text: "explore: started read every file" },
      { kind: "status", text: "Waiting for approval in Delegate: file_write" },
      { kind: "status", text: "explore: completed" },
      { kind: "ended", status: "completed", answer: "The answer." },
    ]);
  });

  it("reports a failed turn with its error, and a failed subagent with its end reason", () => {
    const follower = new TurnFollower("s1", "t1");
    const failed: AgentEvent[] = [
      events[0]!,
      events[2]!,
      { type: "subagent_error", turnId: "t1", ...run, error: "took too long", stats, endReason: "watchdog_timeout", endedAt: at },
      { type: "turn:ended", turnId: "t1", status: "failed", stats, error: "The model is down.", endedAt: at },
    ];
    expect(failed.flatMap((e) => follower.next(e)).slice(1)).toEqual([
      { kind: "status", text: "explore: watchdog timeout (took too long)" },
      { kind: "ended", status: "failed", answer: "", error: "The model is down." },
    ]);
  });
});

describe("listedSkills", () => {
  const definitions = [
    { name: "explore", description: "Reads." },
    { name: "general", description: "Works." },
  ];
  it.each([
    { list: "", names: [] },
    { list: "general, explore", names: ["general", "explore"] },
    { list: "explore,explore,unknown,", names: ["explore"] },
  ])("$list → $names", ({ list, names }) => {
    expect(listedSkills(list, definitions).map((s) => s.name)).toEqual(names);
  });
});
