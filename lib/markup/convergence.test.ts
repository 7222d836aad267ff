import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { AgentEvent, ChatTurn } from "@/lib/contracts";
import { applyEventToTurn, newTurn } from "@/lib/turn/reduce-turn";
import { processInTurn } from "@/lib/turn/process-path";
import { docFromTurn } from "./from-turn";
import { applyEventNaive } from "./naive-baseline";
import { parseMarkup } from "./parse";
import { serializeMarkup } from "./serialize";
import { type RecordedStream, type RecordedStreamOptions, recordedStream } from "@/test/support/turn/recorded-stream";
import { applyEvent } from "./transforms";
import { emptyDoc, type MessageDoc } from "./types";

/**
 * DESIGN invariant 3: the markup a live viewer builds from the event stream equals the
 * markup a reload rebuilds from the stored turn — however the viewer's connection was
 * split, and with events delivered more than once.
 */

const scenarios: [string, RecordedStreamOptions][] = [
  ["one subagent, plain text", { seed: 1, subagents: 1, hostile: false }],
  ["parallel subagents, hostile text", { seed: 2, subagents: 3 }],
  ["sequential subagents", { seed: 3, subagents: 2, parallel: false }],
  ["grandchildren", { seed: 4, subagents: 2, grandchildren: 2 }],
  ["failures and kills", { seed: 5, subagents: 3, grandchildren: 1, failures: 2, kills: 2 }],
  ["no subagents", { seed: 6, subagents: 0, masterToolCalls: 3 }],
];

function storedTurn(stream: RecordedStream, events: readonly AgentEvent[]): ChatTurn {
  const start = newTurn({ sessionId: stream.sessionId, turnId: stream.turnId, prompt: stream.prompt, createdAt: stream.createdAt });
  return events.reduce(applyEventToTurn, start);
}

function liveDoc(doc: MessageDoc, events: readonly AgentEvent[]): MessageDoc {
  return events.reduce(applyEvent, doc);
}

function expectSameMessage(actual: MessageDoc, expected: MessageDoc): void {
  expect(actual).toStrictEqual(expected);
  expect(serializeMarkup(actual)).toBe(serializeMarkup(expected));
}

describe.each(scenarios)("convergence: %s", (_name, options) => {
  const stream = recordedStream(options);
  const { events, turnId } = stream;

  it("the live doc equals the doc rebuilt from the stored turn after every event", () => {
    let doc = emptyDoc(turnId);
    let turn = storedTurn(stream, []);
    for (const event of events) {
      doc = applyEvent(doc, event);
      turn = applyEventToTurn(turn, event);
      expectSameMessage(doc, docFromTurn(turn));
    }
    expect(doc.segments.length).toBeGreaterThan(0);
  });

  it("the stored turn equals the generator's independent record of what happened", () => {
    expect(storedTurn(stream, events)).toStrictEqual(stream.expected);
  });

  it("each process accumulated from the stream equals the one agent:complete stores", () => {
    events.forEach((event, i) => {
      if (event.type !== "agent:complete") return;
      const before = storedTurn(stream, events.slice(0, i));
      const accumulated = processInTurn(before, event.runId);
      expect(accumulated).toStrictEqual(event.subagent);
    });
  });

  it("applying every event twice changes nothing", () => {
    const twice = events.flatMap((e) => [e, e]);
    expectSameMessage(liveDoc(emptyDoc(turnId), twice), liveDoc(emptyDoc(turnId), events));
    expect(storedTurn(stream, twice)).toStrictEqual(storedTurn(stream, events));
    let doc = emptyDoc(turnId);
    for (const event of events) {
      doc = applyEvent(doc, event);
      expect(applyEvent(doc, event)).toBe(doc);
    }
  });

  it("the naive parse-apply-serialise baseline produces the same markup after every event", () => {
    let markup = "";
    let doc = emptyDoc(turnId);
    for (const event of events) {
      markup = applyEventNaive(markup, event);
      doc = applyEvent(doc, event);
      expect(markup).toBe(serializeMarkup(doc));
    }
    expect(parseMarkup(markup, turnId)).toStrictEqual(doc);
  });
});

const streamOptions = fc.record({
  seed: fc.integer({ min: 1, max: 1_000_000 }),
  subagents: fc.integer({ min: 0, max: 3 }),
  grandchildren: fc.integer({ min: 0, max: 2 }),
  tokensPerSubagent: fc.integer({ min: 1, max: 8 }),
  nestedToolCalls: fc.integer({ min: 0, max: 2 }),
  failures: fc.integer({ min: 0, max: 2 }),
  kills: fc.integer({ min: 0, max: 1 }),
  parallel: fc.boolean(),
});

/** A reconnect: the client had seen `seen` events; the server's snapshot covers `snapshot`. */
const splitArb = fc.record({ snapshot: fc.double({ min: 0, max: 1, noNaN: true }), overlap: fc.nat(6), viaSnapshot: fc.boolean() });

describe("convergence under reconnects (property)", () => {
  it("a client that restarts from snapshots at random points, with overlapping replays, ends with the live doc", () => {
    fc.assert(
      fc.property(streamOptions, fc.array(splitArb, { maxLength: 4 }), (options, splits) => {
        const stream = recordedStream(options);
        const { events, turnId } = stream;
        const points = splits
          .map((s) => ({ ...s, at: Math.floor(s.snapshot * events.length) }))
          .sort((a, b) => a.at - b.at);
        let doc = emptyDoc(turnId);
        let position = 0;
        for (const split of points) {
          doc = liveDoc(doc, events.slice(position, split.at));
          // Snapshot: the stored turn so far; replay: the client keeps its doc.
          if (split.viaSnapshot) doc = docFromTurn(storedTurn(stream, events.slice(0, split.at)));
          position = Math.max(0, split.at - split.overlap);
        }
        doc = liveDoc(doc, events.slice(position));
        const live = liveDoc(emptyDoc(turnId), events);
        expectSameMessage(doc, live);
        expectSameMessage(doc, docFromTurn(storedTurn(stream, events)));
      }),
      { numRuns: 60 },
    );
  });

  it("late duplicates of earlier events, delivered anywhere after the original, change nothing", () => {
    fc.assert(
      fc.property(streamOptions, fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: 12 }), (options, dupes) => {
        const stream = recordedStream(options);
        const { events, turnId } = stream;
        const delivered: AgentEvent[] = [...events];
        for (const [from, delay] of dupes) {
          const original = events[from % events.length]!;
          // After the original's place in what is delivered so far (earlier duplicates
          // shift it): a duplicate never overtakes its original, as seq order guarantees.
          const insertAt = Math.min(delivered.length, delivered.indexOf(original) + 1 + (delay % 20));
          delivered.splice(insertAt, 0, original);
        }
        expectSameMessage(liveDoc(emptyDoc(turnId), delivered), liveDoc(emptyDoc(turnId), events));
        expect(storedTurn(stream, delivered)).toStrictEqual(storedTurn(stream, events));
      }),
      { numRuns: 60 },
    );
  });
});
