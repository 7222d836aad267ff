import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Ack, JoinResult } from "@/lib/contracts";
import { createDemoModel } from "@/lib/model/demo-model";
import type { ChatStore } from "@/server/data/store";
import { openTestDatabase, type TestDatabase } from "@/test/support/server/database";
import { request, startLiveApp, type LiveApp } from "@/test/support/server/live-app";
import { runtimeWith, waitFor } from "@/test/support/server/app-harness";

/**
 * A person's large reads of their chats run a few at a time: asking for a large chat
 * many times at once (75 asks held 700 MB and left 41 unanswered after two minutes) runs
 * `READS` of them, lets a few more wait their turn, and refuses the rest at once with a
 * clear "try again", on the socket and over HTTP, while another person is served as usual.
 * The chat's page loads are held open by the test, so what runs at once is counted, not timed.
 */

const READS = 2;
/** The person's socket cap, which sets how many reads may wait: max(sockets, 4 × READS). */
const SOCKETS = 4;
const WAITING = Math.max(SOCKETS, 4 * READS);
const ASKS = READS + WAITING + 5;

let db: TestDatabase;
let live: LiveApp;
let heldSession = "";
let release: () => void = () => undefined;
const held = new Promise<void>((resolve) => (release = resolve));
let running = 0;
let mostAtOnce = 0;
let started = 0;

beforeAll(async () => {
  db = await openTestDatabase("read-gate");
  const store: ChatStore = {
    ...db.store,
    async loadHistoryPage(sessionId, limit, before) {
      if (sessionId !== heldSession) return db.store.loadHistoryPage(sessionId, limit, before);
      started += 1;
      running += 1;
      mostAtOnce = Math.max(mostAtOnce, running);
      try {
        await held;
        return await db.store.loadHistoryPage(sessionId, limit, before);
      } finally {
        running -= 1;
      }
    },
  };
  live = await startLiveApp({
    store,
    runner: runtimeWith(createDemoModel({ chunkDelayMs: 0 })),
    flushMs: 20,
    readsPerPerson: READS,
    personLimits: { chats: 100, runningTurns: 3, sockets: SOCKETS },
  });
});
afterAll(async () => {
  release();
  await live?.close();
  await db?.close();
});

async function newChat(cookie: string) {
  const socket = await live.client(cookie);
  const created = await request(socket, "session:create", {});
  if (!created.ok) throw new Error(created.message);
  return { socket, sessionId: created.data.sessionId };
}

describe("a person's large reads", () => {
  it("run a few at once, a few more wait, the rest are refused at once; another person is served", async () => {
    const cookie = await live.newCookie();
    const { socket, sessionId } = await newChat(cookie);
    heldSession = sessionId;
    const answers: Ack<JoinResult>[] = [];
    const asks = Array.from({ length: ASKS }, () =>
      request(socket, "session:join", { sessionId }, 30_000).then((ack) => {
        answers.push(ack);
        return ack;
      }),
    );
    await waitFor(() => answers.length === ASKS - READS - WAITING, 10_000, "the asks past the queue to be refused");
    for (const ack of answers) {
      expect(ack).toMatchObject({
        ok: false,
        code: "rate_limited",
        message: expect.stringMatching(/Too many reads of your chats at once.*try again/),
      });
    }
    // The ones let through reach the database and stay there until the test lets them go.
    await waitFor(() => started === READS, 10_000, "the first reads to reach the store");

    // The same person's export over HTTP meets the same bound, as a 429.
    const exported = await fetch(`${live.baseUrl}/api/sessions/${sessionId}/export`, { headers: { cookie } });
    expect(exported.status).toBe(429);
    expect(((await exported.json()) as { error: { message: string } }).error.message).toMatch(/Too many reads/);

    // Someone else's reads do not wait behind these.
    const other = await newChat(await live.newCookie());
    expect(await request(other.socket, "session:join", { sessionId: other.sessionId })).toMatchObject({ ok: true });

    release();
    const all = await Promise.all(asks);
    expect(all.filter((ack) => ack.ok)).toHaveLength(READS + WAITING);
    expect(mostAtOnce).toBe(READS);
    // With the reads done, the person's slots are free again.
    const after = await fetch(`${live.baseUrl}/api/sessions/${sessionId}/export`, { headers: { cookie } });
    expect(after.status).toBe(200);
    await after.text();
  });
});
