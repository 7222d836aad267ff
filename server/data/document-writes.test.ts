import { describe, expect, it } from "vitest";
import type { Step } from "@/lib/contracts";
import { newDoc, planDocumentWrite } from "./document-writes";

const step = (text: string): Step => ({ text, thinking: "", toolCalls: [] });

describe("planning one write of a turn or run document", () => {
  it("sends what grew and the fields that changed, filtered on the appendSeq it expects, and nothing once it is held", () => {
    const doc = newDoc("turn", "t1", null);
    const first = planDocumentWrite(doc, { steps: [step("Hello")], fields: { status: "running" } }, false)!;
    expect(first.expectedSeq).toBe(0);
    expect(first.update).toEqual({
      $inc: { appendSeq: 1 },
      $set: { "steps.0": { text: "Hello", thinking: "" }, status: "running" },
    });
    expect(first.replacedTextIds).toBeUndefined();
    first.commit();

    const second = planDocumentWrite(doc, { steps: [step("Hello, world")], fields: { status: "running" } }, false)!;
    expect(second.expectedSeq).toBe(1);
    expect(second.update).toEqual({ $inc: { appendSeq: 1 }, $push: { "steps.0.textParts": ", world" } });
    second.commit();

    expect(planDocumentWrite(doc, { steps: [step("Hello, world")], fields: { status: "running" } }, false)).toBeUndefined();
  });

  it("rewrites the texts whole, naming the chunks to delete first, when the last write finds a text replaced", () => {
    const doc = newDoc("run", "t1", "r1");
    planDocumentWrite(doc, { steps: [step("draft")], fields: {} }, false)!.commit();
    const write = planDocumentWrite(doc, { steps: [step("final")], fields: {} }, true)!;
    expect(write.replacedTextIds).toEqual(["t1:r1:0:text", "t1:r1:0:thinking"]);
    expect(write.update).toEqual({ $inc: { appendSeq: 1 }, $set: { steps: [{ text: "final", thinking: "" }] } });
  });

  it("keeps a run's answer in the document while it fits, and beside it in chunks past that", () => {
    const doc = newDoc("run", "t1", "r1");
    const short = planDocumentWrite(doc, { steps: [], fields: {}, response: "done" }, true)!;
    expect(short.update.$set).toEqual({ response: "done" });
    const long = "x".repeat(1_500_000);
    const chunked = planDocumentWrite(newDoc("run", "t1", "r2"), { steps: [], fields: {}, response: long }, true)!;
    expect(chunked.update.$set).toEqual({ response: "", responseChunks: 2 });
    expect(chunked.chunks.map((c) => [c.textId, c.offset, c.data.length])).toEqual([
      ["t1:r2:response", 0, 1_000_000],
      ["t1:r2:response", 1_000_000, 500_000],
    ]);
  });
});
