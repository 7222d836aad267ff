import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertProductionBuild, startCluster, type Cluster } from "@/test/support/cluster/cluster";
import { createChat, lastTurnEnded, newIdentity, openViewer, type Viewer } from "@/test/support/cluster/viewer";
import { lineSplitter, parseLogLine } from "@/test/support/log-lines";
import { request } from "@/test/support/server/live-app";
import { testDatabaseUri } from "@/test/support/server/database";

/**
 * The real server as people deploy it (`tsx server/index.ts`, NODE_ENV=production, the
 * production build, the offline demo model) runs a turn and stops on SIGTERM: every line
 * it wrote to stderr, from its first to its last, is one JSON log record.
 */

let cluster: Cluster | undefined;
const lines: string[] = [];
let viewer: Viewer | undefined;

beforeAll(async () => {
  assertProductionBuild();
  cluster = await startCluster({
    processes: 1,
    redis: false,
    mongoUri: testDatabaseUri("production_logs"),
    env: { DEMO_CHUNK_DELAY_MS: "5", DEMO_REPLY_DELAY_MS: "0" },
    onLogLine: (_node, line) => lines.push(line),
  });
}, 240_000);

afterAll(async () => {
  viewer?.close();
  await cluster?.close();
}, 60_000);

describe("the server's log in production", () => {
  it("is JSON on every line through a start, a turn with subagents and a stop", { timeout: 120_000 }, async () => {
    const node = cluster!.node("a");
    const cookie = await newIdentity(node);
    const sessionId = await createChat(node, cookie);
    viewer = await openViewer(node, cookie, sessionId);
    const sent = await request(viewer.socket, "turn:send", { sessionId, text: "Investigate the open bugs and the release plan" }, 15_000);
    expect(sent.ok, JSON.stringify(sent)).toBe(true);
    await viewer.waitFor("end of the turn", lastTurnEnded, 60_000);
    expect(viewer.state().turns.at(-1)!.status).toBe("completed");
    // A page too: Next's own code path, which prints through console.* when it has something to say.
    expect((await fetch(`${node.baseUrl}/`, { headers: { cookie } })).status).toBe(200);
    await node.terminate();
    expect(node.exitCode).toBe(0);

    const records = lines.map((line) => ({ line, record: parseLogLine(line) }));
    expect(records.filter((r) => !r.record).map((r) => r.line)).toEqual([]);
    const messages = records.map((r) => r.record!.msg);
    expect(messages.some((m) => m.startsWith("Delegate is ready at http://127.0.0.1:"))).toBe(true);
    expect(messages).toContain("SIGTERM: stopping…");
    expect(messages.at(-1)).toBe("SIGTERM: no turn was running");
    // The turn's end is one line an operator can find by chat.
    expect(records.map((r) => r.record!).filter((r) => r.msg === "Turn completed" && r.sessionId === sessionId)).toHaveLength(1);
    for (const { record } of records) {
      expect(["debug", "info", "warn", "error"]).toContain(record!.level);
      expect(new Date(record!.time!).toISOString()).toBe(record!.time);
      expect(record!.msg).not.toContain("\u001b[");
      // No tracer is registered here, so no line claims a trace.
      expect(record).not.toHaveProperty("trace_id");
    }
  });

  it("reports a configuration it cannot start with as a JSON error line, and exits 1", { timeout: 60_000 }, async () => {
    const child = spawn(process.execPath, ["--import", "tsx", "server/index.ts"], {
      env: { ...process.env, NODE_ENV: "production", PORT: "not-a-port", MONGODB_URI: "mongodb://127.0.0.1:1/never" },
      stdio: ["ignore", "ignore", "pipe"],
    });
    const errorLines: string[] = [];
    child.stderr.on(
      "data",
      lineSplitter((line) => errorLines.push(line)),
    );
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect(code).toBe(1);
    expect(errorLines).toHaveLength(1);
    expect(parseLogLine(errorLines[0]!)).toMatchObject({
      level: "error",
      msg: expect.stringMatching(/^Invalid configuration:\n {2}PORT: /),
    });
  });
});
