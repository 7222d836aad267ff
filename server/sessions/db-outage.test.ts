import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDemoModel } from "@/lib/model/demo-model";
import { startMongoJavaServer, type RunningMongo } from "@/server/db/mongo-java-server";
import { openSession, recordEvents, request, runtimeWith, startHarness, waitFor, type Harness } from "@/test/support/server/app-harness";

/**
 * The database goes away in the middle of a turn and stays away well past the turn's
 * end (150 s: past the retry budget a single write used to have, when writes were dropped): the turn keeps
 * streaming to the browser, its writes wait in the outbox, and once the database is back
 * everything is stored — nothing half-written, nothing lost. (A file-backed test server, so data survives the
 * restart, on a fixed port, so the driver finds it again.)
 */
let dir: string;
let mongo: RunningMongo;
let harness: Harness;
let port: number;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "delegate-outage-"));
  mongo = await startMongoJavaServer({ h2File: path.join(dir, "db.mv") });
  port = mongo.port;
  harness = await startHarness("outage", {
    runner: runtimeWith(createDemoModel({ chunkDelayMs: 25 })),
    mongoUri: `${mongo.uri}outage`,
  });
}, 60_000);

afterAll(async () => {
  await harness?.close();
  await mongo?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("database outage during a turn", () => {
  it("keeps streaming, waits as long as the database is away, then stores the whole turn", { timeout: 300_000 }, async () => {
    const { socket, sessionId } = await openSession(harness);
    const events = recordEvents(socket);
    await request(socket, "session:join", { sessionId });
    await request(socket, "turn:send", { sessionId, text: "Investigate the open bugs and the release plan" });
    await waitFor(() => events.some((e) => e.type === "subagent_started"), 10_000, "subagents to start");

    await mongo.stop();
    const tokensBefore = events.filter((e) => (e.type === "turn:data" && e.data.kind === "token") || e.type === "subagent_data").length;
    await waitFor(
      () =>
        events.filter((e) => (e.type === "turn:data" && e.data.kind === "token") || e.type === "subagent_data").length > tokensBefore + 5,
      20_000,
      "streaming to go on without the database",
    );

    await waitFor(() => events.some((e) => e.type === "turn:ended"), 60_000, "the turn to end without the database");
    const ended = events.find((e) => e.type === "turn:ended");
    expect(ended?.type === "turn:ended" && ended.status).toBe("completed");
    await new Promise((r) => setTimeout(r, 150_000));
    expect(
      await harness.store.loadHistory(sessionId).then(
        () => "up",
        () => "down",
      ),
    ).toBe("down");

    mongo = await startMongoJavaServer({ h2File: path.join(dir, "db.mv"), port });

    const session = (await harness.app.registry.peek(sessionId))!;
    await session.drain();
    const turn = await harness.models.Turn.findOne({ sessionId }).lean();
    expect(turn?.status).toBe("completed");
    // What MongoDB rebuilds is exactly what the server folded while the database was away.
    expect(await harness.store.loadHistory(sessionId)).toStrictEqual(await session.history());
    const runs = await harness.models.SubagentRun.find({ sessionId }).lean();
    expect(runs).toHaveLength(2);
    expect(runs.every((r) => r.status === "success" && r.response.length > 0)).toBe(true);
  });
});
