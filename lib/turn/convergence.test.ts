import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { AgentEvent, ChatTurn } from "@/lib/contracts";
import { initialSessionState, sessionReducer, type SessionState } from "@/lib/chat/session-state";
import { serializeTurn } from "@/lib/markup/serialize";
import { applyEventNaive } from "@/test/support/markup/naive-baseline";
import { parseTurnMarkup } from "@/test/support/markup/parse";
import { type RecordedStream, type RecordedStreamOptions, recordedStream, toSessionEvents } from "@/test/support/turn/recorded-stream";
import { recordedStreamOptions } from "@/test/support/turn/stream-options";
import { processInTurn } from "./paths";
import { applyEvent, newTurn } from "./reduce";

/**
 * Live and replay converge, pure half: one reducer folds every holder's turn, so the server's
 * fold, the browser's session state (its own reducer around the same turn reducer) and a
 * viewer that reconnected — from a snapshot or by replay, with overlaps and duplicates —
 * hold deep-equal turns after every event, and the `<SubagentExecution>` markup string round-trips.
 * The rebuild from MongoDB is held to the same fold in server/data/storage-convergence.test.ts.
 */

const scenarios: [string, RecordedStreamOptions][] = [
  ["one subagent, plain text", { seed: 1, subagents: 1, hostile: false }],
  ["parallel subagents, hostile text", { seed: 2, subagents: 3 }],
  ["sequential subagents", { seed: 3, subagents: 2, parallel: false }],
  ["grandchildren", { seed: 4, subagents: 2, grandchildren: 2 }],
  ["failures and kills", { seed: 5, subagents: 3, grandchildren: 1, failures: 2, kills: 2 }],
  ["no subagents", { seed: 6, subagents: 0, masterToolCalls: 3 }],
  ["approvals at every depth", { seed: 7, subagents: 2, grandchildren: 1, masterToolCalls: 2, approvals: 6 }],
  ["steered runs, killed and finished", { seed: 8, subagents: 2, grandchildren: 1, kills: 1, steers: 3 }],
];

function fold(stream: RecordedStream, events: readonly AgentEvent[]): ChatTurn {
  const start = newTurn({ sessionId: stream.sessionId, turnId: stream.turnId, prompt: stream.prompt, createdAt: stream.createdAt });
  return events.slice(events[0]?.type === "turn:started" ? 1 : 0).reduce(applyEvent, start);
}

/** The browser's state after a snapshot taken `snapshotAt` events in, then the relayed rest. */
function browserTurn(stream: RecordedStream, upTo: number, snapshotAt = 0): ChatTurn | undefined {
  const relayed = toSessionEvents(stream);
  let state: SessionState = initialSessionState(stream.sessionId);
  if (snapshotAt > 0) {
    state = sessionReducer(state, {
      type: "joined",
      result: {
        mode: "snapshot",
        sessionId: stream.sessionId,
        title: "t",
        seq: snapshotAt,
        turns: [fold(stream, stream.events.slice(0, snapshotAt))],
        older: null,
      },
    });
  }
  for (const event of relayed.slice(snapshotAt, upTo)) state = sessionReducer(state, { type: "event", event });
  expect(state.needsResync).toBe(false);
  return state.turns[0];
}

describe.each(scenarios)("convergence: %s", (_name, options) => {
  const stream = recordedStream(options);
  const { events } = stream;

  it("the server's fold, the browser's state and the markup round trip agree after every event", () => {
    let turn = fold(stream, events.slice(0, 1));
    let state: SessionState = initialSessionState(stream.sessionId);
    toSessionEvents(stream).forEach((event, i) => {
      if (i > 0) turn = applyEvent(turn, event);
      state = sessionReducer(state, { type: "event", event });
      expect(state.turns[0]).toStrictEqual(turn);
      expect(parseTurnMarkup(serializeTurn(turn))).toStrictEqual(turn);
    });
    expect(turn.steps.length).toBeGreaterThan(0);
  });

  it("the fold equals the generator's independent record of what happened", () => {
    expect(fold(stream, events)).toStrictEqual(stream.expected);
  });

  it("each process folded from its own events equals the stored one when agent:complete arrives", () => {
    events.forEach((event, i) => {
      if (event.type !== "agent:complete") return;
      expect(processInTurn(fold(stream, events.slice(0, i + 1)), event.runId)).toStrictEqual(processInTurn(stream.expected, event.runId));
    });
  });

  it("applying every event twice changes nothing, and returns the very same turn", () => {
    const twice = events.flatMap((e) => [e, e]);
    expect(fold(stream, twice)).toStrictEqual(fold(stream, events));
    let turn = fold(stream, events.slice(0, 1));
    for (const event of events.slice(1)) {
      turn = applyEvent(turn, event);
      expect(applyEvent(turn, event)).toBe(turn);
    }
  });

  it("the naive parse-apply-serialise baseline produces the same markup after every event", () => {
    let markup = serializeTurn(fold(stream, events.slice(0, 1)));
    let turn = fold(stream, events.slice(0, 1));
    for (const event of events.slice(1)) {
      markup = applyEventNaive(markup, event);
      turn = applyEvent(turn, event);
      expect(markup).toBe(serializeTurn(turn));
    }
  });

  it("a browser that joined from a snapshot mid-stream ends with the live turn", () => {
    const middle = Math.floor(events.length / 2);
    expect(browserTurn(stream, events.length, middle)).toStrictEqual(fold(stream, events));
  });
});

/** A reconnect: the client had seen `seen` events; the server's snapshot covers `snapshot`. */
const splitArb = fc.record({ snapshot: fc.double({ min: 0, max: 1, noNaN: true }), overlap: fc.nat(6), viaSnapshot: fc.boolean() });

describe("convergence under reconnects (property)", () => {
  it("a viewer that restarts from snapshots at random points, with overlapping replays, ends with the live turn after every event", () => {
    fc.assert(
      fc.property(recordedStreamOptions, fc.array(splitArb, { maxLength: 4 }), (options, splits) => {
        const stream = recordedStream(options);
        const { events } = stream;
        const points = splits.map((s) => ({ ...s, at: Math.max(1, Math.floor(s.snapshot * events.length)) })).sort((a, b) => a.at - b.at);
        let turn = fold(stream, events.slice(0, 1));
        let position = 1;
        for (const split of points) {
          for (const event of events.slice(position, split.at)) {
            turn = applyEvent(turn, event);
          }
          // Snapshot: the server's fold so far; replay: the viewer keeps its turn and gets an overlap again.
          if (split.viaSnapshot) turn = structuredClone(fold(stream, events.slice(0, split.at)));
          position = Math.max(1, split.at - split.overlap);
        }
        for (const event of events.slice(position)) turn = applyEvent(turn, event);
        expect(turn).toStrictEqual(fold(stream, events));
        expect(parseTurnMarkup(serializeTurn(turn))).toStrictEqual(turn);
      }),
      { numRuns: 60 },
    );
  });

  it("late duplicates of earlier events, delivered anywhere after the original, change nothing", () => {
    fc.assert(
      fc.property(recordedStreamOptions, fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: 12 }), (options, dupes) => {
        const stream = recordedStream(options);
        const { events } = stream;
        const delivered: AgentEvent[] = [...events];
        for (const [from, delay] of dupes) {
          const original = events[from % events.length]!;
          // After the original's place in what is delivered so far (earlier duplicates
          // shift it): a duplicate never overtakes its original, as seq order guarantees.
          const insertAt = Math.min(delivered.length, delivered.indexOf(original) + 1 + (delay % 20));
          delivered.splice(insertAt, 0, original);
        }
        expect(fold(stream, delivered)).toStrictEqual(fold(stream, events));
      }),
      { numRuns: 60 },
    );
  });
});
