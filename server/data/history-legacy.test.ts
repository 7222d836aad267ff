import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildSessionContext } from "@/lib/context/build-session-context";
import type { Models } from "@/models";
import { openTestDatabase, type TestDatabase } from "@/test/support/server/database";
import { lacks } from "@/test/support/server/ferretdb-gaps";
import { loadHistory } from "./history";

/**
 * Chats stored by Delegate 0.1 (one flat text per turn and run, calls placed by
 * `textOffset`) still open after the upgrade, as steps, and rebuild the same model
 * context 0.1 rebuilt. The rows are written with the driver, as 0.1 left them.
 */

let db: TestDatabase;
let models: Models;
beforeAll(async () => {
  db = await openTestDatabase("history-legacy");
  models = db.models;
});
afterAll(() => db?.close());

const stats = { chat: { inputTokens: 1, outputTokens: 2 }, system: { inputTokens: 0, outputTokens: 0 }, steps: 2, runtimeMs: 5, cost: 0 };
const at = new Date("2026-06-01T10:00:00.000Z");

describe("loadHistory on 0.1 records", () => {
  it("reads a flat turn and run as steps: calls at one offset are one step, the text after the last call the answer", async () => {
    const sessionId = "legacy1";
    await models.Turn.collection.insertOne({
      _id: "t1" as never,
      sessionId,
      prompt: "what ships?",
      response: "Let me look. Delegating. It ships May 3.",
      status: "completed",
      stats,
      createdAt: at,
      updatedAt: at,
    });
    await models.ToolCall.collection.insertMany([
      {
        _id: "t1:m:c1" as never,
        sessionId,
        turnId: "t1",
        runId: null,
        callId: "c1",
        order: 0,
        name: "grep",
        parameters: "{}",
        response: "hit",
        responseSize: 3,
        status: "success",
        textOffset: 12,
      },
      {
        _id: "t1:m:c2" as never,
        sessionId,
        turnId: "t1",
        runId: null,
        callId: "c2",
        order: 1,
        name: "subagent",
        parameters: "{}",
        response: "[Result] May 3",
        responseSize: 14,
        status: "success",
        textOffset: 24,
      },
      {
        _id: "t1:r1:n1" as never,
        sessionId,
        turnId: "t1",
        runId: "r1",
        callId: "n1",
        order: 0,
        name: "file_read",
        parameters: "{}",
        response: "plan",
        responseSize: 4,
        status: "success",
        textOffset: 0,
      },
    ]);
    await models.SubagentRun.collection.insertOne({
      _id: "r1" as never,
      sessionId,
      turnId: "t1",
      callId: "c2",
      parentRunId: null,
      depth: 1,
      name: "explore",
      task: "find",
      prompt: "P",
      response: "Reading. May 3.",
      thinking: "hm",
      status: "success",
      endReason: "completed",
      stats,
      startedAt: at,
      endedAt: at,
    });

    const [turn] = await loadHistory(models, sessionId);
    expect(turn!.steps.map((s) => [s.text, s.toolCalls.map((c) => c.callId)])).toEqual([
      ["Let me look.", ["c1"]],
      [" Delegating.", ["c2"]],
      [" It ships May 3.", []],
    ]);
    const run = turn!.steps[1]!.toolCalls[0]!.subagent!;
    expect(run.steps).toEqual([{ text: "Reading. May 3.", thinking: "hm", toolCalls: [expect.objectContaining({ callId: "n1" })] }]);
    expect(run.response).toBe("Reading. May 3.");

    expect(buildSessionContext([turn!]).map((m) => (m.role === "tool" ? `tool:${m.content}` : `${m.role}:${m.content}`))).toEqual([
      "user:what ships?",
      "assistant:Let me look.",
      "tool:hit",
      "assistant: Delegating.",
      "tool:[Result] May 3",
      "assistant: It ships May 3.",
    ]);
  });
});

describe("loadHistory on calls stored before a stopped call had its own status", () => {
  it("reads an error that says cancelled, or that never got a result, as cancelled; the model reads the same text", async () => {
    const sessionId = "legacy2";
    await models.Turn.collection.insertOne({
      _id: "t2" as never,
      sessionId,
      prompt: "look",
      steps: [{ text: "Looking.", thinking: "" }],
      status: "cancelled",
      stats,
      createdAt: at,
      updatedAt: at,
    });
    const stopped = 'Error [cancelled]: "grep" was stopped before it finished.';
    const row = (callId: string, order: number, response: string, status: string) => ({
      _id: `t2:m:${callId}` as never,
      sessionId,
      turnId: "t2",
      runId: null,
      callId,
      step: 0,
      order,
      name: "grep",
      parameters: "{}",
      response,
      responseSize: response.length,
      status,
    });
    await models.ToolCall.collection.insertMany([
      row("c1", 0, stopped, "error"),
      row("c2", 1, "", "error"),
      row("c3", 2, "Error [tool_failed]: no such file", "error"),
      row("c4", 3, "Error [cancelled] is what it printed", "success"),
    ]);

    const [turn] = await loadHistory(models, sessionId);
    expect(turn!.steps[0]!.toolCalls.map((c) => [c.callId, c.status])).toEqual([
      ["c1", "cancelled"],
      ["c2", "cancelled"],
      ["c3", "error"],
      ["c4", "success"],
    ]);
    expect(
      buildSessionContext([turn!])
        .filter((m) => m.role === "tool")
        .map((m) => m.content),
    ).toEqual([stopped, "", "Error [tool_failed]: no such file", "Error [cancelled] is what it printed"]);
  });
});

describe("loadHistory on step times", () => {
  const turnWith = (id: string, stepTimes: unknown) => ({
    _id: id as never,
    sessionId: "times",
    prompt: "p",
    steps: [
      { text: "one", thinking: "" },
      { text: "two", thinking: "" },
      { text: "three", thinking: "" },
    ],
    stepTimes,
    status: "completed",
    stats,
    createdAt: at,
    updatedAt: at,
  });
  const first = { startedAt: "2026-06-01T10:00:00.000Z", endedAt: "2026-06-01T10:00:02.000Z" };
  const second = { startedAt: "2026-06-01T10:00:02.000Z", endedAt: "2026-06-01T10:00:05.000Z" };
  const timesOf = async () => {
    const [turn] = await loadHistory(models, "times");
    return turn!.steps.map((s) => (s.startedAt === undefined ? null : { startedAt: s.startedAt, endedAt: s.endedAt }));
  };

  it("reads the times stored as subdocuments, a step not ended having none", async () => {
    await models.Turn.collection.insertOne(turnWith("tt1", [first, second, null]));
    expect(await timesOf()).toEqual([first, second, null]);
    await models.Turn.collection.deleteMany({ sessionId: "times" });
  });

  it.skipIf(lacks("nestedArrays"))("reads the [startedAt, endedAt] pairs that earlier versions stored", async () => {
    await models.Turn.collection.insertOne(turnWith("tt2", [[first.startedAt, first.endedAt], [second.startedAt, second.endedAt], null]));
    expect(await timesOf()).toEqual([first, second, null]);
    await models.Turn.collection.deleteMany({ sessionId: "times" });
  });
});
