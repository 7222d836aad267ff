import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_INPUT_VALUE_CHARS, type SessionEvent } from "@/lib/contracts";
import { BUILTIN_DEFINITIONS } from "@/lib/agent/definitions";
import { MASTER_PROMPT_MARKER } from "@/lib/agent/prompts";
import { askTool } from "@/test/support/agent/ask-tool";
import { tempWorkspace } from "@/test/support/agent/harness";
import { scriptedModel, systemOf, toolResults } from "@/test/support/agent/scripted-model";
import { openSession, recordEvents, request, runtimeWith, startHarness, waitFor, type Harness } from "@/test/support/server/app-harness";
import { dataOf } from "@/test/support/turn/agent-data";

/**
 * `tool:answer` against a question that really waits (the shapes alone are in the socket
 * corpus): forged call and run ids, answers that do not fit the form, huge text, a second
 * answer, an answer after the run was killed and one from a stranger are each refused with
 * a clear error, the question keeps waiting through every refusal, and nothing reaches the
 * tool but the one answer that fits.
 */

let harness: Harness;
let ws: Awaited<ReturnType<typeof tempWorkspace>>;
const isMaster = (system: string) => system.startsWith(MASTER_PROMPT_MARKER);
const model = scriptedModel((req) => {
  const results = toolResults(req.messages);
  if (results.length > 0) return { text: `Result: ${results[0]!.content}` };
  // "in a subagent": the master delegates, and the question is the subagent's call's.
  if (isMaster(systemOf(req)) && req.messages.some((m) => m.role === "user" && String(m.content).includes("in a subagent")))
    return { toolCalls: [{ id: "m1", name: "subagent", args: { agent: "general", task: "Order a shirt" } }] };
  return { toolCalls: [{ id: "q1", name: "pick_size", args: {} }] };
});
const definitions = BUILTIN_DEFINITIONS.map((d) => ({ ...d, allowedTools: [...d.allowedTools, "pick_size"] }));

beforeAll(async () => {
  ws = await tempWorkspace();
  harness = await startHarness("hostile_answers", {
    runner: runtimeWith(model, { tools: [askTool()], definitions, workspaceDir: ws.dir }),
  });
});
afterAll(async () => {
  await harness?.close();
  await ws?.cleanup();
});

const inputsIn = (events: SessionEvent[]) => dataOf(events, "input");

async function asking(text: string) {
  const { cookie, socket, sessionId } = await openSession(harness);
  const events = recordEvents(socket);
  expect((await request(socket, "session:join", { sessionId })).ok).toBe(true);
  await request(socket, "turn:send", { sessionId, text });
  await waitFor(() => inputsIn(events).length === 1, 10_000, "the question");
  return { cookie, socket, sessionId, events, runId: inputsIn(events)[0]!.runId };
}

describe("hostile answers to a waiting question", () => {
  it("refuses forged ids, wrong fields and huge text with clear errors, keeps the question waiting, then takes the one that fits once", async () => {
    const { socket, sessionId, events } = await asking("Order me a shirt");
    const answer = (input: Record<string, unknown>) => request(socket, "tool:answer", { sessionId, callId: "q1", ...input });

    expect(await answer({ callId: "q2", action: "decline" })).toMatchObject({
      ok: false,
      code: "not_found",
      message: expect.stringContaining("No question is waiting"),
    });
    expect(await answer({ runId: "forged_run", action: "decline" })).toMatchObject({ ok: false, code: "not_found" });
    const refusals: [Record<string, unknown>, RegExp][] = [
      [{ action: "accept", content: {} }, /Size is required/],
      [{ action: "accept", content: { size: 3 } }, /Size must be text/],
      [{ action: "accept", content: { size: "xxl" } }, /Size must be one of "s", "m", "l"/],
      [{ action: "accept", content: { size: "m", admin: true } }, /"admin" is not a field of this form/],
      [{ action: "accept", content: { size: "x".repeat(MAX_INPUT_VALUE_CHARS) } }, /Size must be one of/],
      [{ action: "accept", content: { size: "x".repeat(MAX_INPUT_VALUE_CHARS + 1) } }, /content/],
    ];
    for (const [input, message] of refusals) {
      const refused = await answer(input);
      expect(refused).toMatchObject({ ok: false, code: "bad_request", message: expect.stringMatching(message) });
      if (!refused.ok) expect(refused.message.length).toBeLessThan(400);
    }
    // Still waiting: nothing but the question was published, and the tool has not run on.
    expect(inputsIn(events).map((e) => e.input.state)).toEqual(["pending"]);
    expect(events.some((e) => e.type === "turn:ended")).toBe(false);

    expect(await answer({ runId: null, action: "accept", content: { size: "s" } })).toEqual({ ok: true, data: { callId: "q1" } });
    expect(await answer({ action: "decline" })).toMatchObject({ ok: false, code: "not_found" });
    await waitFor(() => events.some((e) => e.type === "turn:ended"), 10_000, "the turn end");
    expect(inputsIn(events).map((e) => e.input.state)).toEqual(["pending", "accepted"]);
    expect(toolResults(model.requests.at(-1)!.messages)[0]!.content).toBe("The person chose s.");
  });

  it("a stranger is told the chat does not exist, and an answer after the run was killed finds nothing", async () => {
    const { socket, sessionId, events, runId } = await asking("Order me a shirt in a subagent");
    expect(runId).not.toBeNull();
    const stranger = await harness.client(await harness.newCookie());
    expect(await request(stranger, "tool:answer", { sessionId, callId: "q1", runId, action: "decline" })).toMatchObject({
      ok: false,
      code: "not_found",
      message: "That chat does not exist.",
    });
    expect((await request(socket, "subagent:kill", { sessionId, runId: runId! })).ok).toBe(true);
    await waitFor(() => inputsIn(events).length === 2, 10_000, "the question's end");
    expect(inputsIn(events)[1]!.input).toMatchObject({ state: "cancelled", note: "The run stopped before anyone answered." });
    expect(
      await request(socket, "tool:answer", { sessionId, callId: "q1", runId, action: "accept", content: { size: "m" } }),
    ).toMatchObject({
      ok: false,
      code: "not_found",
    });
  });
});
