import { describe, expect, it } from "vitest";
import type { AgentEvent, ChatTurn, JoinResult, SessionEvent } from "@/lib/contracts";
import { stepsText } from "@/lib/contracts";
import { applyEvent, newTurn } from "@/lib/turn/reduce";
import { ev } from "@/test/support/turn/event-builders";
import { recordedStream, toSessionEvents } from "@/test/support/turn/recorded-stream";
import { type SessionAction, type SessionState, initialSessionState, isBusy, sessionReducer } from "./session-state";

const stamp = (events: AgentEvent[], first = 1): SessionEvent[] => events.map((e, i) => ({ ...e, sessionId: "s1", seq: first + i }));
const run = (actions: SessionAction[], state: SessionState = initialSessionState("s1")) => actions.reduce(sessionReducer, state);
const asEvents = (events: SessionEvent[]): SessionAction[] => events.map((event) => ({ type: "event", event }));
const text = (state: SessionState, i = 0) => stepsText(state.turns[i]!.steps);

const storedTurn: ChatTurn = {
  ...newTurn({ sessionId: "s1", turnId: "t0", prompt: "earlier", createdAt: "c" }),
  steps: [{ text: "Old answer", thinking: "", toolCalls: [] }],
  status: "completed",
};
const snapshot = (seq: number, turns: ChatTurn[] = [storedTurn], older: string | null = null): SessionAction => ({
  type: "joined",
  result: { mode: "snapshot", sessionId: "s1", title: "Chat", seq, turns, older } satisfies JoinResult,
});
const live = stamp([ev.started("hi"), ev.token(0, "Hello"), ev.token(5, " there")], 11);

describe("sessionReducer", () => {
  it("a snapshot replaces the state: its turns, seq and title", () => {
    const state = run([snapshot(10)]);
    expect(state).toMatchObject({ seq: 10, title: "Chat", needsResync: false, replaying: false });
    expect(state.turns).toStrictEqual([storedTurn]);
  });

  it("a page rendered from a join starts in the state that join gives: a rejoin from its seq replays on top", () => {
    const fromPage = (snapshot(10) as { result: Extract<JoinResult, { mode: "snapshot" }> }).result;
    const state = initialSessionState("s1", fromPage);
    expect(state).toEqual(run([snapshot(10)]));
    const resumed = run(
      [
        ...asEvents(live),
        { type: "joined", result: { mode: "replay", sessionId: "s1", seq: 13 } },
        { type: "replay:complete", sessionId: "s1", seq: 13 },
      ],
      state,
    );
    expect(resumed).toMatchObject({ seq: 13, needsResync: false, replaying: false });
    expect(text(resumed, 1)).toBe("Hello there");
    // Without a snapshot, the empty state of a page that joins over the socket first.
    expect(initialSessionState("s1", null)).toEqual(initialSessionState("s1"));
  });

  it("applies events in sequence: turn:started opens a running turn that streams", () => {
    const state = run([snapshot(10), ...asEvents(live)]);
    expect(state.seq).toBe(13);
    expect(state.turns[1]).toMatchObject({ turnId: "t1", prompt: "hi", status: "running" });
    expect(text(state, 1)).toBe("Hello there");
    expect(isBusy(state)).toBe(true);
  });

  const ignored: [string, SessionEvent][] = [
    ["an event at or below the known seq", { ...live[1]!, seq: 10 }],
    ["an event of another session", { ...live[0]!, sessionId: "s2" }],
  ];
  it.each(ignored)("ignores %s (same state object)", (_name, event) => {
    const state = run([snapshot(10)]);
    expect(sessionReducer(state, { type: "event", event })).toBe(state);
  });

  it("a gap marks needsResync and nothing more applies until a snapshot", () => {
    const gapped = run([snapshot(10), { type: "event", event: live[0]! }, { type: "event", event: live[2]! }]);
    expect(gapped).toMatchObject({ needsResync: true, seq: 11 });
    expect(text(gapped, 1)).toBe("");
    expect(sessionReducer(gapped, { type: "event", event: { ...live[1]!, seq: 12 } })).toBe(gapped);
    const healed = sessionReducer(gapped, snapshot(20));
    expect(healed).toMatchObject({ needsResync: false, seq: 20 });
  });

  it("an event for a turn it never saw start asks for a resync", () => {
    expect(run([snapshot(10), { type: "event", event: { ...live[1]!, seq: 11 } }]).needsResync).toBe(true);
  });

  it("tracks turn status, error and stats from turn:ended", () => {
    const state = run([snapshot(10), ...asEvents([...live, ...stamp([ev.ended("failed", "Model unavailable")], 14)])]);
    expect(state.turns[1]).toMatchObject({ status: "failed", error: "Model unavailable" });
    expect(state.turns[1]!.stats.steps).toBe(2);
    expect(isBusy(state)).toBe(false);
  });

  it("replay: joined in replay mode until replay:complete; a short replay asks for a resync", () => {
    const replaying = run([snapshot(10), { type: "joined", result: { mode: "replay", sessionId: "s1", seq: 13 } }]);
    expect(replaying.replaying).toBe(true);
    const done = run([...asEvents(live), { type: "replay:complete", sessionId: "s1", seq: 13 }], replaying);
    expect(done).toMatchObject({ replaying: false, needsResync: false, seq: 13 });
    expect(run([{ type: "replay:complete", sessionId: "s1", seq: 15 }], replaying).needsResync).toBe(true);
  });

  it("replay: the missed events may arrive before the join's answer", () => {
    const caughtUp = run([snapshot(10), ...asEvents(live), { type: "replay:complete", sessionId: "s1", seq: 13 }]);
    const joined = run([{ type: "joined", result: { mode: "replay", sessionId: "s1", seq: 13 } }], caughtUp);
    expect(joined).toMatchObject({ replaying: false, needsResync: false, seq: 13 });
  });

  describe("optimistic sending", () => {
    const send: SessionAction = { type: "send", clientId: "k1", prompt: "hi", createdAt: "now" };
    const orders: [string, SessionAction[]][] = [
      ["started before the ack", [send, { type: "event", event: live[0]! }, { type: "send:acked", clientId: "k1", turnId: "t1" }]],
      ["ack before started", [send, { type: "send:acked", clientId: "k1", turnId: "t1" }, { type: "event", event: live[0]! }]],
    ];
    it.each(orders)("shows the prompt at once and ends with one running turn: %s", (_name, actions) => {
      const sending = run([snapshot(10), send]);
      expect(sending.pending).toEqual([{ clientId: "k1", prompt: "hi", createdAt: "now" }]);
      expect(isBusy(sending)).toBe(true);
      const state = run([snapshot(10), ...actions]);
      expect(state.turns.map((t) => [t.turnId, t.status])).toEqual([
        ["t0", "completed"],
        ["t1", "running"],
      ]);
      expect(state.pending).toEqual([]);
    });

    it("a failed send stays visible with its error, also across a snapshot, and does not block the composer", () => {
      const state = run([snapshot(10), send, { type: "send:failed", clientId: "k1", error: "Not connected" }, snapshot(12)]);
      expect(state.pending).toEqual([{ clientId: "k1", prompt: "hi", createdAt: "now", error: "Not connected" }]);
      expect(isBusy(state)).toBe(false);
    });

    it("a prompt withdrawn to be queued leaves no bubble and does not block the composer", () => {
      const state = run([snapshot(10), send, { type: "send:withdrawn", clientId: "k1" }]);
      expect(state.pending).toEqual([]);
      expect(isBusy(state)).toBe(false);
    });

    it("an acknowledged prompt stays pending across a snapshot that does not hold its turn yet", () => {
      const state = run([snapshot(10), send, { type: "send:acked", clientId: "k1", turnId: "t1" }, snapshot(10)]);
      expect(state.pending).toEqual([{ clientId: "k1", prompt: "hi", createdAt: "now", turnId: "t1" }]);
      expect(run([snapshot(11, [storedTurn, { ...storedTurn, turnId: "t1" }])], state).pending).toEqual([]);
    });
  });

  it("a viewer who watched live and one who joined by snapshot see the same turns", () => {
    const stream = recordedStream({ seed: 9, subagents: 2, grandchildren: 1, kills: 1 });
    const watched = run(asEvents(toSessionEvents(stream)));
    const turn = stream.events.slice(1).reduce(applyEvent, newTurn({ ...stream, createdAt: stream.createdAt }));
    const joined = run([snapshot(stream.events.length, [turn])]);
    expect(watched.turns).toStrictEqual(joined.turns);
    expect(watched.turns).toStrictEqual([stream.expected]);
    expect(watched.turns[0]!.status).toBe("completed");
  });
});

describe("sessionReducer with a paged history", () => {
  const turn = (n: number): ChatTurn => ({ ...storedTurn, turnId: `t${n}`, prompt: `prompt ${n}` });
  const ids = (state: SessionState) => state.turns.map((t) => t.turnId);
  const older = (turns: ChatTurn[], cursor: string | null, before: string): SessionAction => ({
    type: "older",
    page: { sessionId: "s1", turns, older: cursor },
    before,
  });
  // Turns t1…t6; the join holds t5 and t6, pages of two before them.
  const joined = run([snapshot(10, [turn(5), turn(6)], "t5")]);

  it("older pages go before the turns, in order, until the cursor says the first turn is there", () => {
    const some = run([older([turn(3), turn(4)], "t3", "t5")], joined);
    expect(ids(some)).toEqual(["t3", "t4", "t5", "t6"]);
    expect(some.older).toBe("t3");
    const all = run([older([turn(1), turn(2)], null, "t3")], some);
    expect(ids(all)).toEqual(["t1", "t2", "t3", "t4", "t5", "t6"]);
    expect(all.older).toBeNull();
  });

  it("a page answering an old cursor changes nothing, and a turn already held is not doubled", () => {
    const some = run([older([turn(3), turn(4)], "t3", "t5")], joined);
    expect(sessionReducer(some, older([turn(3), turn(4)], "t3", "t5"))).toBe(some);
    const overlapping = run([older([turn(2), turn(3), { ...turn(5), prompt: "stale copy" }], "t2", "t3")], some);
    expect(ids(overlapping)).toEqual(["t2", "t3", "t4", "t5", "t6"]);
    expect(overlapping.turns[3]!.prompt).toBe("prompt 5");
  });

  it("an event for a turn of a page not loaded is counted and skipped: no half turn, no resync", () => {
    const event: SessionEvent = { ...ev.token(0, "late", 0, "t2"), sessionId: "s1", seq: 11 };
    const state = sessionReducer(joined, { type: "event", event });
    expect(state).toMatchObject({ seq: 11, needsResync: false });
    expect(ids(state)).toEqual(["t5", "t6"]);
    // Live events for the loaded turns still apply after it.
    const next = run(asEvents(stamp([ev.started("new")], 12)), state);
    expect(ids(next)).toEqual(["t5", "t6", "t1"]);
  });

  it("a snapshot after a gap keeps the older pages the reader loaded", () => {
    const some = run([older([turn(3), turn(4)], "t3", "t5")], joined);
    const resynced = run([snapshot(20, [turn(6), turn(7)], "t6")], some);
    expect(ids(resynced)).toEqual(["t3", "t4", "t5", "t6", "t7"]);
    expect(resynced.older).toBe("t3");
    // A snapshot that holds everything replaces the turns.
    expect(ids(run([snapshot(20, [turn(1), turn(2)])], some))).toEqual(["t1", "t2"]);
  });
});

describe("sessionReducer with branches", () => {
  const started = (turnId: string, seq: number, parentTurnId?: string | null): SessionAction => ({
    type: "event",
    event: {
      type: "turn:started",
      turnId,
      prompt: `prompt ${turnId}`,
      createdAt: "2026-01-01T00:00:00.000Z",
      ...(parentTurnId !== undefined ? { parentTurnId } : {}),
      sessionId: "s",
      seq,
    },
  });
  const ids = (state: SessionState) => state.turns.map((t) => t.turnId);

  it("puts an edit in place of the turns after its parent, and counts the versions", () => {
    let state = initialSessionState("s");
    for (const action of [started("a", 1), started("b", 2), started("c", 3)]) state = sessionReducer(state, action);
    expect(ids(state)).toEqual(["a", "b", "c"]);
    state = sessionReducer(state, started("b2", 4, "a"));
    expect(ids(state)).toEqual(["a", "b2"]);
    expect(state.siblings).toEqual({ b: ["b", "b2"], b2: ["b", "b2"] });
    // A third version of the same turn.
    state = sessionReducer(state, started("b3", 5, "a"));
    expect(state.siblings.b3).toEqual(["b", "b2", "b3"]);
    // A new first prompt replaces everything shown.
    state = sessionReducer(state, started("a2", 6, null));
    expect(ids(state)).toEqual(["a2"]);
    expect(state.siblings.a2).toEqual(["a", "a2"]);
  });

  it("shows another branch's snapshot whole, older pages included", () => {
    let state = initialSessionState("s");
    state = sessionReducer(state, started("a", 1));
    const other: JoinResult = { mode: "snapshot", sessionId: "s", title: "t", seq: 9, older: null, turns: [], siblings: { x: ["x", "y"] } };
    state = sessionReducer(state, { type: "branched", result: other });
    expect(ids(state)).toEqual([]);
    expect(state.siblings).toEqual({ x: ["x", "y"] });
  });
});
