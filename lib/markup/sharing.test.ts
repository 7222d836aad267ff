import { describe, expect, it } from "vitest";
import type { AgentEvent } from "@/lib/contracts";
import { ev } from "@/test/support/turn/event-builders";
import { applyEvent } from "./transforms";
import { emptyDoc, type MessageDoc } from "./types";

/**
 * The cost of one event must not grow with the length of the text. Measured without a
 * clock: count the objects an event creates (everything else is reused, ===) on docs
 * whose text is 1,000 vs 100,000 characters — the counts must be identical and small,
 * and every text string off the path must be the very same string.
 */

function docWithText(chars: number): MessageDoc {
  const chunk = "x".repeat(100);
  const events: AgentEvent[] = [];
  let offset = 0;
  const write = (n: number) => {
    for (let i = 0; i < n / 100; i++, offset += 100) events.push(ev.token(offset, chunk));
  };
  write(chars / 2);
  events.push(ev.call("c1", offset), ev.spawn("r1", "c1"), ev.subCall("r1", "c2", "subagent"), ev.spawn("r2", "c2", "r1"));
  events.push(ev.call("c3", offset, "grep"), ev.result("c3", "y".repeat(5000)));
  write(chars / 2);
  events.push(ev.subToken("r1", 0, "z".repeat(chars)));
  return events.reduce(applyEvent, emptyDoc("t1"));
}

function objectsOf(root: unknown, into = new Set<object>()): Set<object> {
  if (typeof root !== "object" || root === null || into.has(root)) return into;
  into.add(root);
  for (const value of Object.values(root)) objectsOf(value, into);
  return into;
}

function newObjects(before: MessageDoc, after: MessageDoc): number {
  const old = objectsOf(before);
  return [...objectsOf(after)].filter((o) => !old.has(o)).length;
}

function textStrings(doc: MessageDoc): string[] {
  return doc.segments.flatMap((s) => (s.kind === "text" ? [s.text] : []));
}

const cases: [string, (doc: MessageDoc) => AgentEvent][] = [
  ["master token", (doc) => ev.token(doc.textLength, "next ")],
  ["subagent token", (doc) => ev.subToken("r1", doc.textLength, "more")],
  ["grandchild token", () => ev.subToken("r2", 0, "deep")],
  ["nested tool call", () => ev.subCall("r2", "c9")],
  ["master tool result", () => ev.result("c3", "done")],
];

describe("per-event cost does not grow with text length (structural sharing)", () => {
  it.each(cases)("%s creates the same small number of objects at 1,000 and 100,000 characters", (_name, event) => {
    const counts = [1_000, 100_000].map((chars) => {
      const doc = docWithText(chars);
      const next = applyEvent(doc, event(doc));
      expect(next).not.toBe(doc);
      return newObjects(doc, next);
    });
    expect(counts[0]).toBe(counts[1]);
    expect(counts[0]).toBeLessThanOrEqual(12);
  });

  it("a subagent token reuses every master text string and every node off its path", () => {
    const doc = docWithText(100_000);
    const next = applyEvent(doc, ev.subToken("r1", 100_000, "more"));
    const [before, after] = [textStrings(doc), textStrings(next)];
    expect(after).toHaveLength(before.length);
    after.forEach((text, i) => expect(text).toBe(before[i]));
    next.segments.forEach((segment, i) => {
      if (segment.kind === "text") expect(segment).toBe(doc.segments[i]);
    });
    expect(next.runs).toBe(doc.runs);
  });

  it("a master token copies only the segment list and the last text segment", () => {
    const doc = docWithText(100_000);
    const next = applyEvent(doc, ev.token(doc.textLength, "!"));
    const changed = next.segments.filter((segment, i) => segment !== doc.segments[i]);
    expect(changed).toEqual([{ kind: "text", text: `${"x".repeat(50_000)}!` }]);
    expect(next.textLength).toBe(100_001);
  });
});
