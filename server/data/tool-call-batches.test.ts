import mongoose, { type Connection } from "mongoose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentEvent, ChatTurn } from "@/lib/contracts";
import { applyEvent, turnFromStart } from "@/lib/turn/reduce";
import { findCall, callAt, processInTurn } from "@/lib/turn/paths";
import { createModels, initModels, type Models } from "@/models";
import { mongoStore, type ChatStore } from "@/server/data/store";
import { toolCallRecord } from "@/server/data/tool-call-records";
import { InsertBatch } from "@/server/data/insert-batch";
import { WriteOutbox } from "@/server/data/write-outbox";
import { STORABLE_DOCUMENT_BYTES } from "@/server/data/document-size";
import { openTestDatabase, testDatabaseUri, type TestDatabase } from "@/test/support/server/database";
import { startReplyDroppingProxy, type ReplyDroppingProxy } from "@/test/support/server/reply-dropping-proxy";
import { countCommands } from "@/test/support/server/write-meter";
import { ev } from "@/test/support/turn/event-builders";

/**
 * The event writer inserts consecutive tool calls in batches: a step of many calls is a
 * few round trips to the database instead of two per call (an insert, then its result),
 * every record is stored exactly as mongoose's document and update stored it, and a
 * batch retried after a lost reply or refused in part stores each call once and counts
 * only what the database did not take.
 */
let db: TestDatabase;
let connection: Connection;
let models: Models;
let store: ChatStore;
beforeAll(async () => {
  db = await openTestDatabase("call-batches", { monitorCommands: true });
  ({ connection, models, store } = db);
});
afterAll(() => db?.close());

/** A turn's writer and the fold it is handed, as a session keeps them. */
function turnWriter(on: Models, sessionId: string, turnId: string, log?: { warn(): void; error(m: string, f?: object): void }) {
  let turn: ChatTurn | undefined;
  const writer = mongoStore(on).eventWriter({ sessionId, retry: { baseDelayMs: 20 }, ...(log ? { log } : {}) });
  const publish = (event: AgentEvent) => {
    turn = event.type === "turn:started" ? turnFromStart(event, sessionId) : applyEvent(turn!, event);
    writer.record(event, turn);
  };
  publish({ ...ev.started("Look everywhere"), turnId } as AgentEvent);
  return { writer, publish, turn: () => turn!, drain: () => writer.drain([turn!]) };
}

const call = (turnId: string, callId: string, step = 0, parameters = `{"path":"src/${callId}.ts"}`): AgentEvent => ({
  type: "turn:data",
  turnId,
  runId: null,
  data: { kind: "tool_call", step, callId, name: "grep", parameters, at: "2026-01-01T00:00:01.000Z" },
});
const result = (turnId: string, callId: string): AgentEvent => ({
  type: "turn:data",
  turnId,
  runId: null,
  data: {
    kind: "tool_result",
    callId,
    response: `found ${callId}`,
    responseSize: 6 + callId.length,
    status: "success",
    at: "2026-01-01T00:00:02.000Z",
  },
});

describe("a step of many tool calls", () => {
  const CALLS = 1_200;
  // Fewer: each result of a call already sent is an update of its own, and FerretDB takes tens of milliseconds for one.
  const LIVE_CALLS = 300;

  it("replayed call by call with each result (as an import does): a few inserts, no updates, and the turn reloads as folded", async () => {
    const { sessionId } = await store.createSession("owner-1");
    const commands = countCommands(connection, "toolcalls");
    const t = turnWriter(models, sessionId, "turn-replayed");
    for (let i = 0; i < CALLS; i++) {
      t.publish(call("turn-replayed", `c${i}`, Math.floor(i / 600)));
      t.publish(result("turn-replayed", `c${i}`));
    }
    await t.drain();
    commands.stop();

    // One insert per call and one update per result before: 2,400 round trips.
    expect(commands.counts.insert).toBeLessThanOrEqual(CALLS / 100);
    expect(commands.counts.update ?? 0).toBe(0);
    expect(t.writer.givenUp).toBe(0);
    const [stored] = await store.loadHistory(sessionId);
    expect(stored!.steps.map((s) => s.toolCalls.length)).toEqual([600, 600]);
    expect(stored).toStrictEqual(t.turn());
  }, 30_000);

  it("made by a model step (every call, then the results as the tools finish): the calls in a few inserts, and the turn reloads as folded", async () => {
    const { sessionId } = await store.createSession("owner-1");
    const commands = countCommands(connection, "toolcalls");
    const t = turnWriter(models, sessionId, "turn-live");
    for (let i = 0; i < LIVE_CALLS; i++) t.publish(call("turn-live", `c${i}`));
    for (let i = 0; i < LIVE_CALLS; i++) {
      t.publish(result("turn-live", `c${i}`));
      // Tools finish over time: the writes already queued get to run in between.
      if (i % 100 === 0) await new Promise<void>((resolve) => setImmediate(resolve));
    }
    await t.drain();
    commands.stop();

    expect(commands.counts.insert).toBeLessThanOrEqual(LIVE_CALLS / 100);
    expect((commands.counts.insert ?? 0) + (commands.counts.update ?? 0)).toBeLessThanOrEqual(LIVE_CALLS + LIVE_CALLS / 100);
    expect(t.writer.givenUp).toBe(0);
    const [stored] = await store.loadHistory(sessionId);
    expect(stored).toStrictEqual(t.turn());
  }, 30_000);
});

describe("a tool call's stored record", () => {
  /**
   * The writer as it was, an independent oracle: mongoose's document for each call, an
   * update for each approval (the fold's) and each result.
   */
  async function storeAsBefore(on: Models, sessionId: string, events: readonly AgentEvent[], turns: readonly ChatTurn[]) {
    const order = new Map<string, number>();
    for (const [i, event] of events.entries()) {
      if (event.type !== "turn:data" && event.type !== "subagent_data") continue;
      const { turnId, runId, data } = event;
      const id = `${turnId}:${runId ?? "m"}:${"callId" in data ? data.callId : ""}`;
      if (data.kind === "tool_call") {
        const key = `${turnId}|${runId ?? ""}`;
        const n = order.get(key) ?? 0;
        order.set(key, n + 1);
        const { step, callId, name, parameters, at } = data;
        await on.ToolCall.create({
          _id: id,
          sessionId,
          turnId,
          runId,
          callId,
          step,
          order: n,
          name,
          parameters,
          status: "running",
          ...(at !== undefined ? { startedAt: at } : {}),
        });
      } else if (data.kind === "approval") {
        const agent = runId === null ? turns[i]! : processInTurn(turns[i]!, runId)!;
        const approval = callAt(agent, findCall(agent, data.callId)!)!.approval;
        await on.ToolCall.updateOne({ _id: id }, { $set: { approval } });
      } else if (data.kind === "tool_result") {
        const { response, responseSize, status, at } = data;
        await on.ToolCall.updateOne(
          { _id: id },
          { $set: { response, responseSize, status, ...(at !== undefined ? { endedAt: at } : {}) } },
        );
      }
    }
  }

  it("is what mongoose's document and updates stored, field for field and in the same order", async () => {
    const { sessionId } = await store.createSession("owner-1");
    const turnId = "turn-exact";
    const events: AgentEvent[] = [
      call(turnId, "plain"),
      { ...ev.master({ kind: "tool_call", step: 0, callId: "no-start", name: "grep", parameters: "" }), turnId },
      { ...ev.call("approved", 0, "edit_file", '{"path":"a.ts"}'), turnId },
      { ...ev.approval(null, "approved", { preview: "--- a.ts\n+++ a.ts" }), turnId },
      {
        ...ev.approval(null, "approved", {
          state: "approved",
          preview: "--- a.ts\n+++ a.ts",
          decidedAt: "2026-01-01T00:00:03.000Z",
          decidedBy: "id-1",
          note: "fine",
        }),
        turnId,
      },
      result(turnId, "approved"),
      { ...ev.call("spawn", 0), turnId },
      { ...ev.call("pending", 0, "edit_file"), turnId },
      { ...ev.approval(null, "pending", {}), turnId },
      // A run starts: the writes after it follow its document, so the calls before it are sent as they were.
      { ...ev.spawn("r1", "spawn"), turnId },
      { ...ev.subCall("r1", "s1"), turnId },
      { ...ev.data("r1", { kind: "tool_result", callId: "s1", response: "no match", responseSize: 8, status: "error" }), turnId },
      { ...ev.master({ kind: "tool_result", callId: "plain", response: "x", responseSize: 1, status: "success" }), turnId },
      result(turnId, "no-start"),
      { ...ev.completed("r1", "done"), turnId },
      { ...ev.master({ kind: "tool_result", callId: "spawn", response: "done", responseSize: 4, status: "success" }), turnId },
    ];
    const t = turnWriter(models, sessionId, turnId);
    const turns: ChatTurn[] = [];
    for (const event of events) {
      t.publish(event);
      turns.push(t.turn());
    }
    await t.drain();
    expect(t.writer.givenUp).toBe(0);

    const oracle = connection.useDb(`${connection.name}_oracle`);
    try {
      const before = createModels(oracle);
      await initModels(before);
      await storeAsBefore(before, sessionId, events, turns);
      const rows = async (on: Models) => on.ToolCall.collection.find({ sessionId }).sort({ _id: 1 }).toArray();
      const [now, then] = [await rows(models), await rows(before)];
      expect(now.length).toBe(6);
      // Same fields, same values, in the same order.
      expect(now.map((doc) => JSON.stringify(doc))).toEqual(then.map((doc) => JSON.stringify(doc)));
    } finally {
      await oracle.dropDatabase();
    }
    const [stored] = await store.loadHistory(sessionId);
    expect(stored).toStrictEqual(t.turn());
  });
});

describe("a batch", () => {
  let proxy: ReplyDroppingProxy;
  let proxied: Connection;
  let proxiedModels: Models;
  beforeAll(async () => {
    proxy = await startReplyDroppingProxy(testDatabaseUri("x"));
    proxied = await mongoose.createConnection(proxy.uri(connection.name), { serverSelectionTimeoutMS: 5_000 }).asPromise();
    proxiedModels = createModels(proxied);
  });
  afterAll(async () => {
    await proxied?.close();
    await proxy?.close();
  });

  const steps = (turnId: string, t: { publish(e: AgentEvent): void }, calls: number) => {
    for (let i = 0; i < calls; i++) {
      t.publish(call(turnId, `c${i}`));
      t.publish(result(turnId, `c${i}`));
    }
  };

  it("whose reply is lost is sent again: each call is stored once, and nothing is counted as given up", async () => {
    const { sessionId } = await store.createSession("owner-1");
    const turnId = "turn-lost-reply";
    const t = turnWriter(proxiedModels, sessionId, turnId);
    await t.drain();
    const lost = proxy.dropNextReply("insert", "toolcalls");
    steps(turnId, t, 20);
    await t.drain();
    await lost;
    expect(t.writer.givenUp).toBe(0);
    expect(await models.ToolCall.countDocuments({ sessionId })).toBe(20);
    const [stored] = await store.loadHistory(sessionId);
    expect(stored).toStrictEqual(t.turn());
  }, 30_000);

  it("whose insert never reached the database is sent again: every call is stored, and nothing is counted as given up", async () => {
    const { sessionId } = await store.createSession("owner-1");
    const turnId = "turn-lost-request";
    const t = turnWriter(proxiedModels, sessionId, turnId);
    await t.drain();
    const lost = proxy.dropNextRequest("insert", "toolcalls");
    steps(turnId, t, 20);
    await t.drain();
    await lost;
    expect(t.writer.givenUp).toBe(0);
    expect(await models.ToolCall.countDocuments({ sessionId })).toBe(20);
    const [stored] = await store.loadHistory(sessionId);
    expect(stored).toStrictEqual(t.turn());
  }, 30_000);

  it("part of which had landed stores the rest, each call once, and counts nothing as given up", async () => {
    const { sessionId } = await store.createSession("owner-1");
    const turnId = "turn-part-landed";
    // What an attempt that broke off half way leaves: some of the batch's records, as sent.
    const landed = [3, 11].map((i) => ({
      ...toolCallRecord(
        sessionId,
        turnId,
        null,
        { step: 0, callId: `c${i}`, name: "grep", parameters: `{"path":"src/c${i}.ts"}`, at: "2026-01-01T00:00:01.000Z" },
        i,
      ),
      response: `found c${i}`,
      responseSize: 7 + String(i).length,
      status: "success" as const,
      endedAt: "2026-01-01T00:00:02.000Z",
    }));
    await models.ToolCall.collection.insertMany(landed as never[]);
    const t = turnWriter(models, sessionId, turnId);
    steps(turnId, t, 20);
    await t.drain();
    expect(t.writer.givenUp).toBe(0);
    expect(await models.ToolCall.countDocuments({ sessionId })).toBe(20);
    const [stored] = await store.loadHistory(sessionId);
    expect(stored).toStrictEqual(t.turn());
  }, 30_000);

  it("with a record over the document limit, and one the schema refuses, stores the others and counts both as given up", async () => {
    const { sessionId } = await store.createSession("owner-1");
    const turnId = "turn-refused";
    const errors: string[] = [];
    const t = turnWriter(models, sessionId, turnId, {
      warn: () => undefined,
      error: (_m, f) => errors.push(String((f as { error: string }).error)),
    });
    t.publish(call(turnId, "c0"));
    t.publish(call(turnId, "huge", 0, "x".repeat(STORABLE_DOCUMENT_BYTES + 1)));
    t.publish({ ...ev.master({ kind: "tool_call", step: 0, callId: "nameless", name: "", parameters: "{}" }), turnId });
    t.publish(call(turnId, "c1"));
    for (const id of ["c0", "huge", "nameless", "c1"]) t.publish(result(turnId, id));
    await t.drain();

    expect(t.writer.givenUp).toBe(2);
    expect(errors.join("\n")).toMatch(/refused: a tool call: \d+ bytes as BSON, over the \d+ a document may hold/);
    expect(errors.join("\n")).toMatch(/refused: a tool call: name is required/);
    const stored = await models.ToolCall.find({ sessionId }, { callId: 1, response: 1 }).sort({ order: 1 }).lean();
    expect(stored.map((c) => [c.callId, c.response])).toEqual([
      ["c0", "found c0"],
      ["c1", "found c1"],
    ]);
  }, 30_000);

  it("with a record the database refuses (not a duplicate) stores the others and counts that one as given up", async () => {
    const { sessionId } = await store.createSession("owner-1");
    const record = (i: number) =>
      toolCallRecord(sessionId, "turn-db-refusal", null, { step: 0, callId: `c${i}`, name: "grep", parameters: "{}" }, i);
    await models.ToolCall.collection.insertOne(record(0) as never);
    const outbox = new WriteOutbox({ sessionId, retry: { baseDelayMs: 20 } });
    const batch = new InsertBatch(models, () => undefined);
    // Passes the writer's own checks; the database refuses an array as an _id (code 53 on both test servers).
    for (const doc of [record(0), record(1), { ...record(2), _id: ["c2"] as unknown as string }, record(3)]) batch.addCall(doc);
    outbox.enqueue(batch.write, () => batch.size);
    await outbox.drained();
    expect(outbox.givenUp).toBe(1);
    const stored = await models.ToolCall.find({ sessionId }, { callId: 1 }).sort({ order: 1 }).lean();
    expect(stored.map((c) => c.callId)).toEqual(["c0", "c1", "c3"]);
  });
});
