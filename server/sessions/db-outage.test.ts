import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDemoModel } from "@/lib/model/demo-model";
import { startMongoJavaServer, type RunningMongo } from "@/server/db/mongo-java-server";
import { createAppMetrics } from "@/server/metrics/app-metrics";
import { parseExposition, sumOf, valueOf } from "@/test/support/metrics/prom-text";
import { differences } from "@/test/support/turn/differences";
import { openSession, recordEvents, request, runtimeWith, startHarness, waitFor } from "@/test/support/server/app-harness";

/**
 * The database goes away in the middle of a turn and stays away well past the turn's
 * end: the turn keeps streaming to the browser, its writes wait in the outbox (retried
 * past the 8 tries a write once had before it was dropped), and once the database is back
 * everything is stored — nothing half-written, nothing lost. How long it stays away is
 * counted in the outbox's tries, not in time (each try waits out the driver's 5 s server
 * selection): with a 1 ms first backoff ten tries take about 50 s; one slow case keeps
 * the real backoff (250 ms doubling to 10 s), about 100 s. (A file-backed test server, so
 * data survives the restart, on a fixed port, so the driver finds it again.)
 */
let dir: string;
let mongo: RunningMongo;
let port: number;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "delegate-outage-"));
  mongo = await startMongoJavaServer({ h2File: path.join(dir, "db.mv") });
  port = mongo.port;
}, 60_000);

afterAll(async () => {
  await mongo?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs a turn through an outage that lasts until some write has failed `tries` times. */
async function outageDuringTurn(label: string, tries: number, retry?: { baseDelayMs: number }): Promise<void> {
  let mostTries = 0;
  const givenUp: string[] = [];
  const log = {
    warn: (_message: string, fields?: Record<string, unknown>) => {
      if (typeof fields?.attempt === "number") mostTries = Math.max(mostTries, fields.attempt);
    },
    // A write given up (or shed) is lost: the failure names its error.
    error: (message: string, fields?: Record<string, unknown>) => void givenUp.push(`${message}: ${String(fields?.error ?? "")}`),
  };
  const metrics = createAppMetrics({ defaultMetrics: false });
  const scraped = async () => parseExposition(await metrics.registry.metrics());
  const harness = await startHarness(label, {
    metrics,
    runner: runtimeWith(createDemoModel({ chunkDelayMs: 25 })),
    mongoUri: `${mongo.uri}${label}`,
    outbox: { ...(retry ? { retry } : {}), log },
  });
  try {
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
    await waitFor(() => mostTries >= tries, 240_000, `a write to have been tried ${tries} times`);
    expect(
      await harness.store.loadHistory(sessionId).then(
        () => "up",
        () => "down",
      ),
    ).toBe("down");
    // The writes wait in the outbox, and the metrics see them wait.
    expect(valueOf(await scraped(), "delegate_event_store_queue_depth")).toBeGreaterThan(0);

    mongo = await startMongoJavaServer({ h2File: path.join(dir, "db.mv"), port });

    const session = (await harness.app.registry.peek(sessionId))!;
    await session.drain();
    expect(givenUp).toEqual([]);
    const turn = await harness.models.Turn.findOne({ sessionId }).lean();
    expect(turn?.status).toBe("completed");
    // What MongoDB rebuilds is exactly what the server folded while the database was away.
    const stored = await harness.store.loadHistory(sessionId);
    expect(differences(stored, await session.history())).toEqual([]);
    expect(stored).toStrictEqual(await session.history());
    const runs = await harness.models.SubagentRun.find({ sessionId }).lean();
    expect(runs).toHaveLength(2);
    expect(runs.every((r) => r.status === "success" && r.response.length > 0)).toBe(true);
    const after = await scraped();
    expect(valueOf(after, "delegate_event_store_queue_depth")).toBe(0);
    expect(sumOf(after, "delegate_event_store_writes_given_up_total")).toBe(0);
  } finally {
    await harness.close();
  }
}

describe("database outage during a turn", () => {
  it("keeps streaming, waits as long as the database is away, then stores the whole turn", { timeout: 180_000 }, () =>
    outageDuringTurn("outage", 10, { baseDelayMs: 1 }),
  );

  it("slow (about 100 s, the real backoff): the same through ten tries of one write", { timeout: 300_000 }, () =>
    outageDuringTurn("outage_slow", 10),
  );
});
