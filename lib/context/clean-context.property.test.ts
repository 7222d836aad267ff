import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { emptyStats, type ChatTurn, type Step, type SubagentProcess, type ToolCall } from "@/lib/contracts";
import type { ChatMessage } from "@/lib/model/types";
import { buildSessionContext } from "./build-session-context";

/**
 * Invariant 1 over random histories: however stored records look (nested subagents,
 * failures, missing `subagent`, full/cut/failed JSON envelopes, empty responses), a
 * rebuilt context never carries a subagent's internals. Every internal field is generated
 * with a distinctive marker; clean fields never are.
 */

const MARK = "ZZINTERNAL";
const word = fc.constantFrom("alpha", "beta", "gamma", "delta", "bug", "plan", "release");
const cleanText = fc.array(word, { minLength: 0, maxLength: 6 }).map((w) => w.join(" "));
const marked = (what: string) => fc.integer({ min: 0, max: 999 }).map((n) => `${MARK}_${what}_${n}`);
const stats = fc.record({ steps: fc.nat(9), runtimeMs: fc.nat(99_999) }).map((s) => ({ ...emptyStats(), ...s }));

/** A subagent's non-final step: interim text, reasoning and calls — all internal. */
const interimStep = (nested: fc.Arbitrary<ToolCall>): fc.Arbitrary<Step> =>
  fc.record({
    text: marked("INTERIM"),
    thinking: marked("THINKING"),
    toolCalls: fc.array(nested, { maxLength: 3, depthIdentifier: "tree" }),
  });

const { process } = fc.letrec<{ process: SubagentProcess; nested: ToolCall }>((tie) => ({
  process: fc
    .record({
      runId: fc.uuid(),
      parentRunId: fc.constant(null),
      depth: fc.integer({ min: 1, max: 2 }),
      name: fc.constantFrom("explore", "general"),
      task: cleanText,
      prompt: marked("PROMPT"),
      interim: fc.array(interimStep(tie("nested") as fc.Arbitrary<ToolCall>), { maxLength: 2 }),
      finalThinking: marked("THINKING"),
      response: cleanText,
      stats,
      status: fc.constantFrom("success" as const, "error" as const),
      startedAt: fc.constant("2026-01-01T00:00:00.000Z"),
      steering: fc.array(fc.record({ step: fc.nat(3), message: marked("STEER"), at: fc.constant("2026-01-01T00:00:01.000Z") }), {
        maxLength: 2,
      }),
    })
    .map(({ interim, finalThinking, steering, ...p }): SubagentProcess => ({
      ...p,
      ...(steering.length ? { steering } : {}),
      steps: [...interim, { text: p.response, thinking: finalThinking, toolCalls: [] }],
    })),
  nested: fc.record(
    {
      callId: marked("NESTEDID"),
      name: fc.constantFrom("grep", "file_read", "subagent"),
      parameters: marked("NESTEDARGS"),
      response: marked("NESTEDRESULT"),
      responseSize: fc.nat(),
      status: fc.constant("success" as const),
      subagent: fc.option(tie("process") as fc.Arbitrary<SubagentProcess>, { nil: undefined, depthIdentifier: "tree", maxDepth: 2 }),
    },
    { requiredKeys: ["callId", "name", "parameters", "response", "responseSize", "status"] },
  ),
})) as { process: fc.Arbitrary<SubagentProcess> };

function envelopeOf(p: SubagentProcess): string {
  const thinking = p.steps.map((s) => s.thinking).join("");
  return JSON.stringify({
    success: true,
    data: {
      prompt: p.prompt,
      thinking,
      response: p.response,
      steps: p.steps,
      toolCalls: p.steps.flatMap((s) => s.toolCalls),
      stats: p.stats,
    },
  });
}

const subagentCall = fc
  .record({
    id: fc.uuid(),
    process: process,
    keepProcess: fc.boolean(),
    stored: fc.constantFrom("narrative", "envelope", "cut-envelope", "failed-envelope", "empty"),
    cutAt: fc.integer({ min: 1, max: 400 }),
  })
  .map(({ id, process: p, keepProcess, stored, cutAt }): ToolCall => {
    const envelope = envelopeOf(p);
    const response = {
      narrative: `[Subagent Result: ${p.name}-x]\nStatus: Completed\n\n${p.response}`,
      envelope,
      "cut-envelope": envelope.slice(0, Math.min(cutAt, envelope.length - 1)),
      "failed-envelope": JSON.stringify({ success: false, error: "subagent failed cleanly", data: undefined }),
      empty: "",
    }[stored];
    return {
      callId: id,
      name: "subagent",
      parameters: JSON.stringify({ agent: p.name, task: p.task }),
      response,
      responseSize: response.length,
      status: p.status,
      ...(keepProcess ? { subagent: p } : {}),
    };
  });

const plainCall = fc.record({
  callId: fc.uuid(),
  name: fc.constantFrom("grep", "file_read", "list_files"),
  parameters: fc.constant('{"path":"."}'),
  response: cleanText,
  responseSize: fc.nat(),
  status: fc.constantFrom("success" as const, "error" as const, "running" as const),
});

const masterStep = fc.record({
  text: cleanText,
  thinking: fc.constant(""),
  toolCalls: fc.array(fc.oneof(subagentCall, plainCall), { maxLength: 3 }),
});

const chatTurn = fc.record({
  turnId: fc.uuid(),
  sessionId: fc.constant("s"),
  prompt: cleanText,
  steps: fc.array(masterStep, { maxLength: 3 }),
  stats,
  status: fc.constantFrom("completed" as const, "failed" as const, "cancelled" as const, "running" as const),
  createdAt: fc.constant("2026-01-01T00:00:00.000Z"),
}) satisfies fc.Arbitrary<ChatTurn>;

function assertProtocol(messages: ChatMessage[]): void {
  let pending: string[] = [];
  for (const m of messages) {
    if (m.role === "tool") {
      expect(pending).toContain(m.toolCallId);
      pending = pending.filter((id) => id !== m.toolCallId);
    } else {
      expect(pending).toEqual([]);
      pending = m.role === "assistant" ? (m.toolCalls ?? []).map((c) => c.id) : [];
    }
  }
  expect(pending).toEqual([]);
}

describe("clean context over random histories (property)", () => {
  it("never rebuilds a subagent's thinking, interim step text, nested tool calls, stats or envelope, and keeps the tool protocol", () => {
    fc.assert(
      fc.property(fc.array(chatTurn, { maxLength: 6 }), (turns) => {
        const messages = buildSessionContext(turns, { warn: () => undefined });
        const text = JSON.stringify(messages);
        expect(text).not.toContain(MARK);
        expect(text).not.toMatch(/runtimeMs|inputTokens|\\"success\\"|\\"toolCalls\\"/);
        assertProtocol(messages);
        const expectedIds = turns
          .filter((t) => t.status !== "running")
          .flatMap((t) => t.steps.flatMap((s) => s.toolCalls.map((c) => c.callId)));
        expect(messages.flatMap((m) => (m.role === "tool" ? [m.toolCallId] : []))).toEqual(expect.arrayContaining(expectedIds));
        expect(messages.filter((m) => m.role === "tool")).toHaveLength(expectedIds.length);
      }),
      { numRuns: 300 },
    );
  });
});
