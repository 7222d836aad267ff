import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { initialSessionState, sessionReducer, type SessionState } from "@/lib/chat/session-state";
import { TURN_PAGE_SIZE, type ChatTurn, type JoinResult, type SessionEvent, type TurnPage } from "@/lib/contracts";
import { generateHistory, insertHistory } from "@/bench/seed-session";
import {
  openSession,
  recordEvents,
  request,
  startHarness,
  waitFor,
  type Harness,
  type TestClient,
} from "@/test/support/server/app-harness";
import { fakeRunner } from "@/test/support/turn/fake-runner";
import { dataOf } from "@/test/support/turn/agent-data";

/**
 * A long chat opens with its newest page of turns, and every older turn is reachable
 * page by page (`session:older`): the real server on port 0, socket.io clients and the
 * real database server, with the history written as stored rows.
 */

const TURNS = 75;
let harness: Harness;
/** Releases the turn that is running (each turn streams "Hello", waits here, then ends). */
let release: () => void = () => undefined;

beforeAll(async () => {
  harness = await startHarness("paged", {
    runner: fakeRunner(async (turn) => {
      turn.publish({ type: "turn:data", turnId: turn.turnId, runId: null, data: { kind: "token", step: 0, offset: 0, text: "Hello" } });
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      turn.publish({ type: "turn:data", turnId: turn.turnId, runId: null, data: { kind: "token", step: 0, offset: 5, text: " again" } });
    }),
  });
});
afterAll(async () => {
  release();
  await harness?.close();
});

/**
 * A chat of `turns` stored turns. Twelve of them share one start time (the id orders them),
 * across the join's page boundary (45 of 75) and a page boundary of 7 after it (38).
 */
async function longChat(turns = TURNS): Promise<{ cookie: string; socket: TestClient; sessionId: string }> {
  const opened = await openSession(harness);
  const history = generateHistory({ sessionId: opened.sessionId, turns, subagents: 10, nestedToolCalls: 30 });
  const tied = history[36]?.createdAt;
  if (tied && turns === TURNS) for (const turn of history.slice(36, 48)) turn.createdAt = tied;
  await insertHistory(harness.models, history);
  return opened;
}

async function join(socket: TestClient, sessionId: string, lastSeq?: number): Promise<JoinResult> {
  const ack = await request(socket, "session:join", lastSeq === undefined ? { sessionId } : { sessionId, lastSeq });
  if (!ack.ok) throw new Error(ack.message);
  return ack.data;
}

function snapshotOf(result: JoinResult): Extract<JoinResult, { mode: "snapshot" }> {
  if (result.mode !== "snapshot") throw new Error("expected a snapshot");
  return result;
}

async function older(socket: TestClient, sessionId: string, before: string, limit?: number): Promise<TurnPage> {
  const ack = await request(socket, "session:older", limit === undefined ? { sessionId, before } : { sessionId, before, limit });
  if (!ack.ok) throw new Error(`${ack.code}: ${ack.message}`);
  return ack.data;
}

/** Every page from the join's back to the first turn, oldest first, as a browser scrolling up collects them. */
async function allPages(socket: TestClient, sessionId: string, first: { turns: ChatTurn[]; older: string | null }, limit?: number) {
  const pages: ChatTurn[][] = [first.turns];
  let cursor = first.older;
  while (cursor !== null) {
    const page = await older(socket, sessionId, cursor, limit);
    expect(page.sessionId).toBe(sessionId);
    pages.unshift(page.turns);
    cursor = page.older;
  }
  return pages;
}

describe("a paged history over the socket", () => {
  it("the join holds the newest page only; older pages reach every turn once, in order", async () => {
    const { socket, sessionId } = await longChat();
    const joined = snapshotOf(await join(socket, sessionId));
    const stored = await harness.store.loadHistory(sessionId);
    expect(stored).toHaveLength(TURNS);
    expect(joined.turns).toStrictEqual(stored.slice(-TURN_PAGE_SIZE));
    expect(joined.older).toBe(joined.turns[0]!.turnId);

    const pages = await allPages(socket, sessionId, joined);
    expect(pages.map((p) => p.length)).toEqual([TURNS - 2 * TURN_PAGE_SIZE, TURN_PAGE_SIZE, TURN_PAGE_SIZE]);
    // Across the pages: every stored turn, field for field, none missing, none twice.
    expect(pages.flat()).toStrictEqual(stored);
  });

  it("a page of the size asked for, across turns that started in the same millisecond", async () => {
    const { socket, sessionId } = await longChat();
    const joined = snapshotOf(await join(socket, sessionId));
    const pages = await allPages(socket, sessionId, joined, 7);
    expect(pages.slice(1, -1).every((p) => p.length === 7)).toBe(true);
    expect(pages.flat().map((t) => t.turnId)).toEqual((await harness.store.loadHistory(sessionId)).map((t) => t.turnId));
  });

  it("a short chat's join holds all of it and says nothing is older", async () => {
    const { socket, sessionId } = await longChat(4);
    const joined = snapshotOf(await join(socket, sessionId));
    expect(joined.turns).toHaveLength(4);
    expect(joined.older).toBeNull();
  });

  it("the running turn is always in the join's page, and the pages before it are the stored ones", async () => {
    const { cookie, socket, sessionId } = await longChat();
    await join(socket, sessionId);
    const events = recordEvents(socket);
    const sent = await request(socket, "turn:send", { sessionId, text: "Still going" });
    if (!sent.ok) throw new Error(sent.message);
    await waitFor(() => dataOf(events, "token", "master").length > 0, 5_000, "the turn streaming");
    // Another tab of the same person opens the chat while the turn streams.
    const tab = await harness.client(cookie);
    const joined = snapshotOf(await join(tab, sessionId));
    expect(joined.turns.at(-1)).toMatchObject({ turnId: sent.data.turnId, status: "running", prompt: "Still going" });
    // The newest stored page, and the running turn after it if MongoDB does not hold it yet.
    expect(joined.turns.length).toBeGreaterThanOrEqual(TURN_PAGE_SIZE);
    expect(joined.turns.length).toBeLessThanOrEqual(TURN_PAGE_SIZE + 1);
    release();
    await (await harness.app.registry.peek(sessionId))?.settled();
    const stored = (await harness.store.loadHistory(sessionId)).map((t) => t.turnId);
    expect(stored).toHaveLength(TURNS + 1);
    expect((await allPages(tab, sessionId, joined)).flat().map((t) => t.turnId)).toEqual(stored);
  });

  it("a viewer who rejoins after a disconnect (replay) ends with what a fresh join shows", async () => {
    const { cookie, socket, sessionId } = await longChat(40);
    let state: SessionState = sessionReducer(initialSessionState(sessionId), { type: "joined", result: await join(socket, sessionId) });
    const live: SessionEvent[] = recordEvents(socket);
    const sent = await request(socket, "turn:send", { sessionId, text: "Across a disconnect" });
    if (!sent.ok) throw new Error(sent.message);
    await waitFor(() => dataOf(live, "token", "master").length > 0, 5_000, "first token");
    for (const event of live) state = sessionReducer(state, { type: "event", event });
    socket.disconnect();

    release();
    const session = await harness.app.registry.peek(sessionId);
    await session?.settled();

    const back = await harness.client(cookie);
    const missed = recordEvents(back);
    const rejoined = await join(back, sessionId, state.seq);
    expect(rejoined.mode).toBe("replay");
    await waitFor(() => missed.some((e) => e.type === "turn:ended"), 5_000, "the missed end");
    state = sessionReducer(state, { type: "joined", result: rejoined });
    for (const event of missed) state = sessionReducer(state, { type: "event", event });

    const fresh = snapshotOf(await join(await harness.client(cookie), sessionId));
    // The rejoined viewer still holds the page it had, one turn longer; the fresh join's
    // page is its newest part, and both are exactly what is stored.
    const stored = await harness.store.loadHistory(sessionId);
    expect(state.needsResync).toBe(false);
    expect(state.turns).toStrictEqual(stored.slice(-TURN_PAGE_SIZE - 1));
    expect(fresh.turns).toStrictEqual(stored.slice(-TURN_PAGE_SIZE));
    expect(state.turns.at(-1)).toMatchObject({ turnId: sent.data.turnId, status: "completed" });
  });
});

describe("session:older refuses", () => {
  it("a stranger, exactly as a chat that does not exist", async () => {
    const { socket, sessionId } = await longChat(40);
    const joined = snapshotOf(await join(socket, sessionId));
    const stranger = await harness.client(await harness.newCookie());
    const ack = await request(stranger, "session:older", { sessionId, before: joined.older! });
    expect(ack).toMatchObject({ ok: false, code: "not_found" });
    const missing = await request(stranger, "session:older", { sessionId: "noSuchChat1", before: joined.older! });
    expect(missing).toMatchObject({ ok: false, code: "not_found", message: (ack as { message: string }).message });
  });

  it("a cursor that is not a turn of this chat, or not a cursor at all, with bad_request", async () => {
    const { socket, sessionId } = await longChat(40);
    const other = await longChat(40);
    const theirs = snapshotOf(await join(other.socket, other.sessionId)).older!;
    const cases: [unknown, RegExp][] = [
      [{ sessionId, before: "noSuchTurn" }, /before is not a turn of this chat/],
      [{ sessionId, before: theirs }, /before is not a turn of this chat/],
      [{ sessionId, before: "../etc" }, /before must be an id/],
      [{ sessionId, before: { $gt: "" } }, /before/],
      [{ sessionId }, /before/],
      [{ sessionId, before: theirs, limit: 0 }, /limit/],
      [{ sessionId, before: theirs, limit: 101 }, /limit/],
      [{ sessionId, before: theirs, limit: 2.5 }, /limit/],
    ];
    for (const [input, message] of cases) {
      const ack = await request(socket, "session:older", input as never);
      expect(ack, JSON.stringify(input)).toMatchObject({ ok: false, code: "bad_request" });
      expect((ack as { message: string }).message, JSON.stringify(input)).toMatch(message);
    }
  });
});
