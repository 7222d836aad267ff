import mongoose, { type Connection } from "mongoose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emptyStats, type AgentEvent, type AgentEventOf, type ChatTurn } from "@/lib/contracts";
import { applyEvent, turnFromStart } from "@/lib/turn/reduce";
import { createModels, type Models } from "@/models";
import { mongoStore, type ChatStore } from "@/server/data/store";
import { DroneSession } from "@/server/sessions/drone-session";
import type { TurnRunner } from "@/server/sessions/turn-runner";
import { openTestDatabase, testDatabaseUri, type TestDatabase } from "@/test/support/server/database";
import { startReplyDroppingProxy, type ReplyDroppingProxy } from "@/test/support/server/reply-dropping-proxy";
import { meterWrites, storedBytes } from "@/test/support/server/write-meter";
import { fakeRunner } from "@/test/support/turn/fake-runner";

/**
 * The event store appends: what it sends MongoDB while a long answer streams grows with
 * the answer, not with its square (it used to send each running text whole every 100 ms),
 * and a retried append whose reply was lost does not store its text twice.
 */
let db: TestDatabase;
let connection: Connection;
let models: Models;
let store: ChatStore;
beforeAll(async () => {
  db = await openTestDatabase("append-writes", { monitorCommands: true });
  ({ connection, models, store } = db);
});
afterAll(() => db?.close());

const TOKEN = "Streaming tokens, one after another; ";

/** A stand-in for the runtime (no model runs): a subagent thinks and answers, then the master answers, `chars` each, paced like a stream. */
function longAnswerRunner(chars: number): TurnRunner {
  return fakeRunner(async ({ turnId, at, publish, turn, startSubagent, stats }) => {
    const ref = startSubagent("read");
    const stream = async (event: (offset: number) => AgentEvent) => {
      for (let offset = 0, n = 0; offset < chars; offset += TOKEN.length, n++) {
        publish(event(offset));
        // About 1,500 tokens a second: the writer flushes many times while the text grows.
        if (n % 8 === 0) await new Promise((r) => setTimeout(r, 5));
      }
    };
    await stream((offset) => ({ type: "subagent_data", ...ref, data: { kind: "thinking", step: 0, offset, text: TOKEN } }));
    await stream((offset) => ({ type: "subagent_data", ...ref, data: { kind: "token", step: 0, offset, text: TOKEN } }));
    const answer = processText(turn(), ref.runId);
    publish({ type: "subagent_completed", ...ref, response: answer, stats, endReason: "completed", endedAt: at });
    publish({
      type: "turn:data",
      turnId,
      runId: null,
      data: { kind: "tool_result", callId: "c1", response: "clean result", responseSize: 12, status: "success" },
    });
    await stream((offset) => ({ type: "turn:data", turnId, runId: null, data: { kind: "token", step: 1, offset, text: TOKEN } }));
  });
}

function processText(turn: ChatTurn, runId: string): string {
  const process = turn.steps[0]!.toolCalls[0]!.subagent!;
  expect(process.runId).toBe(runId);
  return process.steps[0]!.text;
}

describe("bytes written for a long streamed answer", () => {
  it("are at most twice what the turn stores, and the stored turn reloads exactly", async () => {
    const { sessionId } = await store.createSession("owner-1");
    const meter = meterWrites(connection);
    const drone = await DroneSession.open({
      store,
      sessionId,
      title: "t",
      runner: longAnswerRunner(120_000),
      relay: () => undefined,
      flushMs: 20,
    });
    const turnId = await drone.startTurn("answer at length");
    await drone.settled();
    meter.stop();

    const live = drone.liveTurn(turnId)!;
    expect(live.steps[1]!.text.length).toBeGreaterThanOrEqual(120_000);
    const [stored] = await store.loadHistory(sessionId);
    expect(stored).toStrictEqual(live);

    const written = meter.total();
    const kept = await storedBytes(models, sessionId);
    // Four texts of 120,000 characters (thinking, answer, the run's response, the master's answer).
    expect(kept).toBeGreaterThan(480_000);
    // Rewriting each running text whole at every flush sent about 70 times this.
    expect(written).toBeLessThanOrEqual(2 * kept);
  }, 60_000);
});

describe("an append whose reply is lost", () => {
  let proxy: ReplyDroppingProxy;
  let proxied: Connection;
  beforeAll(async () => {
    proxy = await startReplyDroppingProxy(testDatabaseUri("x"));
    proxied = await mongoose.createConnection(proxy.uri(connection.name), { serverSelectionTimeoutMS: 5_000 }).asPromise();
  });
  afterAll(async () => {
    await proxied?.close();
    await proxy?.close();
  });

  it("is retried without storing its text twice", async () => {
    const proxiedModels = createModels(proxied);
    const { sessionId } = await store.createSession("owner-1");
    const turnId = "turn-lost-reply";
    let turn: ChatTurn | undefined;
    const writer = mongoStore(proxiedModels).eventWriter({ sessionId, retry: { baseDelayMs: 20 } });
    const publish = (event: AgentEvent) => {
      turn = event.type === "turn:started" ? turnFromStart(event, sessionId) : applyEvent(turn!, event);
      writer.record(event, turn);
    };
    publish({ type: "turn:started", turnId, prompt: "p", createdAt: new Date().toISOString() });
    publish({ type: "turn:data", turnId, runId: null, data: { kind: "token", step: 0, offset: 0, text: "first piece. " } });
    await writer.drain([turn!]);

    const lost = proxy.dropNextReply("update", "turns");
    const second = "second piece, whose reply the network loses. ";
    publish({ type: "turn:data", turnId, runId: null, data: { kind: "token", step: 0, offset: 13, text: second } });
    await writer.drain([turn!]);
    await lost;
    publish({ type: "turn:data", turnId, runId: null, data: { kind: "token", step: 0, offset: 13 + second.length, text: "third." } });
    publish({
      type: "turn:ended",
      turnId,
      status: "completed",
      stats: emptyStats(),
      endedAt: new Date().toISOString(),
    } satisfies AgentEventOf<"turn:ended">);
    await writer.drain([turn!]);

    const [stored] = await store.loadHistory(sessionId);
    expect(stored!.steps[0]!.text).toBe(`first piece. ${second}third.`);
    expect(stored).toStrictEqual(turn);
  }, 30_000);
});
