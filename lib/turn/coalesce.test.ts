import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { AgentEvent, ChatTurn } from "@/lib/contracts";
import { ev } from "@/test/support/turn/event-builders";
import { recordedStream } from "@/test/support/turn/recorded-stream";
import { recordedStreamOptions } from "@/test/support/turn/stream-options";
import { coalesceText } from "./coalesce";
import { applyEvent, newTurn } from "./reduce";
import { isData } from "@/test/support/turn/agent-data";

const start = (turnId = "t1"): ChatTurn => newTurn({ sessionId: "s1", turnId, prompt: "hi", createdAt: "2026-01-01T00:00:00.000Z" });
const fold = (events: readonly AgentEvent[], turn = start()) => events.reduce(applyEvent, turn);

describe("coalesceText merges only text that continues itself", () => {
  const cases: [string, AgentEvent[], AgentEvent[]][] = [
    ["contiguous master tokens become one", [ev.token(0, "ab"), ev.token(2, "cd"), ev.token(4, "e")], [ev.token(0, "abcde")]],
    ["contiguous subagent tokens become one", [ev.subToken("r1", 0, "x"), ev.subToken("r1", 1, "yz")], [ev.subToken("r1", 0, "xyz")]],
    ["a gap starts a new stretch", [ev.token(0, "ab"), ev.token(5, "cd")], [ev.token(0, "ab"), ev.token(5, "cd")]],
    [
      "a gap in a subagent's text starts a new stretch",
      [ev.subToken("r1", 0, "ab"), ev.subToken("r1", 3, "cd")],
      [ev.subToken("r1", 0, "ab"), ev.subToken("r1", 3, "cd")],
    ],
    [
      "an overlap in a subagent's text starts a new stretch",
      [ev.subToken("r1", 0, "ab"), ev.subToken("r1", 1, "bc")],
      [ev.subToken("r1", 0, "ab"), ev.subToken("r1", 1, "bc")],
    ],
    ["a repeated chunk (a replay overlap) is not merged", [ev.token(0, "ab"), ev.token(0, "ab")], [ev.token(0, "ab"), ev.token(0, "ab")]],
    ["another step starts a new stretch", [ev.token(0, "ab", 0), ev.token(2, "cd", 1)], [ev.token(0, "ab", 0), ev.token(2, "cd", 1)]],
    [
      "another run starts a new stretch",
      [ev.subToken("r1", 0, "a"), ev.subToken("r2", 1, "b")],
      [ev.subToken("r1", 0, "a"), ev.subToken("r2", 1, "b")],
    ],
    [
      "reasoning and answer text stay apart",
      [ev.subThinking("r1", 0, "a"), ev.subToken("r1", 1, "b")],
      [ev.subThinking("r1", 0, "a"), ev.subToken("r1", 1, "b")],
    ],
    ["another turn starts a new stretch", [ev.token(0, "ab"), ev.token(2, "cd", 0, "t2")], [ev.token(0, "ab"), ev.token(2, "cd", 0, "t2")]],
    [
      "any other event keeps its place between stretches",
      [ev.token(0, "a"), ev.token(1, "b"), ev.call("c1"), ev.token(2, "c"), ev.token(3, "d")],
      [ev.token(0, "ab"), ev.call("c1"), ev.token(2, "cd")],
    ],
  ];
  it.each(cases)("%s", (_name, events, expected) => {
    expect(coalesceText(events)).toStrictEqual(expected);
  });

  it("leaves the events it was given untouched", () => {
    const events = [ev.subToken("r1", 0, "x"), ev.subToken("r1", 1, "y")];
    const copy = structuredClone(events);
    coalesceText(events);
    expect(events).toStrictEqual(copy);
  });
});

describe("folding coalesced events gives the turn folding them one by one gives", () => {
  it("for recorded turns cut into batches anywhere, with chunks repeated as a replay sends them, or lost", () => {
    fc.assert(
      fc.property(
        recordedStreamOptions,
        fc.array(fc.nat(), { maxLength: 12 }),
        fc.array(fc.nat(), { maxLength: 8 }),
        fc.array(fc.nat(), { maxLength: 3 }),
        (options, cuts, repeats, losses) => {
          const stream = recordedStream({ ...options, turnId: "t1" });
          const events = stream.events.slice(1).slice();
          // Replays re-send a stretch that was already applied: insert copies of earlier text events.
          for (const r of repeats) {
            const at = r % (events.length + 1);
            const back = events.slice(Math.max(0, at - 3), at);
            events.splice(at, 0, ...back);
          }
          const bounds = [...new Set(cuts.map((c) => c % (events.length + 1)))].sort((a, b) => a - b);
          // A lost chunk leaves a gap: the reducer ignores what follows it, merged or not.
          for (const l of losses) events.splice(l % events.length, 1);
          const first = newTurn({ sessionId: stream.sessionId, turnId: stream.turnId, prompt: stream.prompt, createdAt: stream.createdAt });
          const one = fold(events, first);
          let batched = first;
          let single = first;
          let from = 0;
          // Compared after every batch: a subagent's closing `agent:complete` replaces its whole process, which would hide a wrong fold before it.
          for (const to of [...bounds, events.length]) {
            batched = fold(coalesceText(events.slice(from, to)), batched);
            single = fold(events.slice(from, to), single);
            expect(batched).toStrictEqual(single);
            from = to;
          }
          expect(batched).toStrictEqual(one);
          if (losses.length === 0) expect(one).toStrictEqual(stream.expected);
        },
      ),
      { numRuns: 150 },
    );
  });

  it("merges a streamed answer into few events", () => {
    const stream = recordedStream({ seed: 11, subagents: 2, tokensPerSubagent: 40, parallel: false });
    const texts = stream.events.filter((e) => isData(e, "token"));
    const merged = coalesceText(stream.events).filter((e) => isData(e, "token"));
    expect(merged.length).toBeLessThan(texts.length / 4);
  });
});
