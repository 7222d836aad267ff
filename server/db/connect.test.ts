import { createServer } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { connectDatabase, redact, type Database } from "./connect";
import { startMongoJavaServer, type RunningMongo } from "./mongo-java-server";

let db: Database | undefined;
let mongo: RunningMongo | undefined;
afterAll(async () => {
  await db?.close();
  await mongo?.stop();
});

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = createServer().listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/**
 * SIGSTOP returns before every thread of the process has stopped; under load a thread
 * can still answer one request. Wait until the kernel reports the whole process stopped.
 */
async function stoppedForSure(pid: number): Promise<void> {
  const { readdirSync, readFileSync } = await import("node:fs");
  const allStopped = () =>
    readdirSync(`/proc/${pid}/task`).every((tid) =>
      / T /.test(readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8").replace(/^.*\)/, ")")),
    );
  for (let i = 0; i < 100; i++) {
    if (allStopped()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`process ${pid} did not stop`);
}

describe("connectDatabase", () => {
  it("says the database is unreachable, keeps retrying, and connects once it is up", { timeout: 60_000 }, async () => {
    const port = await freePort();
    const warnings: string[] = [];
    const pending = connectDatabase(
      { MONGODB_URI: `mongodb://127.0.0.1:${port}/startup`, DATA_DIR: ".data" },
      { info: () => {}, warn: (m) => warnings.push(m) },
    );
    const settled = { done: false };
    void pending.then(() => (settled.done = true));

    const deadline = Date.now() + 20_000;
    while (warnings.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(warnings[0]).toMatch(/unreachable.*retrying/);
    expect(settled.done).toBe(false);

    mongo = await startMongoJavaServer({ port });
    db = await pending;
    expect(await db.isUp()).toBe(true);
    await db.close();
    db = undefined;
  });

  it("says the database is down while its server is paused (SIGSTOP), and up again once it resumes", { timeout: 60_000 }, async () => {
    const paused = await startMongoJavaServer();
    const quiet = { info: () => {}, warn: () => {} };
    const conn = await connectDatabase({ MONGODB_URI: `${paused.uri}health`, DATA_DIR: ".data" }, quiet);
    try {
      expect(await conn.isUp()).toBe(true);
      process.kill(paused.pid, "SIGSTOP");
      await stoppedForSure(paused.pid);
      const started = Date.now();
      expect(await conn.isUp()).toBe(false);
      expect(Date.now() - started).toBeLessThan(5_000);
      process.kill(paused.pid, "SIGCONT");
      expect(await conn.isUp()).toBe(true);
    } finally {
      process.kill(paused.pid, "SIGCONT");
      await conn.close();
      await paused.stop();
    }
  });

  it("never prints credentials", () => {
    expect(redact("mongodb://user:secret@db.example:27017/x")).toBe("mongodb://***@db.example:27017/x");
  });
});

describe("the embedded database", () => {
  it("starts without MONGODB_URI and keeps data across restarts", { timeout: 90_000 }, async () => {
    const { mkdtempSync, rmSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const path = await import("node:path");
    const dataDir = mkdtempSync(path.join(tmpdir(), "delegate-embedded-"));
    const quiet = { info: () => {}, warn: () => {} };
    try {
      const first = await connectDatabase({ MONGODB_URI: undefined, DATA_DIR: dataDir }, quiet);
      expect(first.embedded).toBe(true);
      await first.connection.collection("notes").insertOne({ _id: "kept" as never, text: "still here" });
      await first.close();

      const second = await connectDatabase({ MONGODB_URI: undefined, DATA_DIR: dataDir }, quiet);
      const doc = await second.connection.collection("notes").findOne({ _id: "kept" as never });
      expect(doc?.text).toBe("still here");
      await second.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("is restarted by the app when its process is killed, and keeps every write it acknowledged", { timeout: 120_000 }, async () => {
    const { mkdtempSync, rmSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const path = await import("node:path");
    const dataDir = mkdtempSync(path.join(tmpdir(), "delegate-embedded-kill-"));
    const quiet = { info: () => {}, warn: () => {} };
    const db = await connectDatabase({ MONGODB_URI: undefined, DATA_DIR: dataDir, EMBEDDED_DB: "mongo-java-server" }, quiet);
    try {
      const notes = db.connection.collection("notes");
      const acknowledged: string[] = [];
      for (let i = 0; i < 60; i++) {
        await notes.insertOne({ _id: `n${i}` as never, i });
        acknowledged.push(`n${i}`);
      }
      // Killed at once: H2 on its own commits about once a second, so these would be lost.
      const first = db.embeddedPid()!;
      process.kill(first, "SIGKILL");
      const deadline = Date.now() + 60_000;
      while (!(db.embeddedPid() !== first && (await db.isUp())) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
      expect(db.embeddedPid()).not.toBe(first);
      expect(await db.isUp()).toBe(true);
      const stored = await notes.find({}, { projection: { _id: 1 } }).toArray();
      expect(stored.map((d) => d._id).sort()).toEqual([...acknowledged].sort());
    } finally {
      await db.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
