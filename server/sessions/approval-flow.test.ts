import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SessionEvent, ToolCall } from "@/lib/contracts";
import { createWorkspaceTools } from "@/lib/tools";
import { GHOST_APPROVAL_NOTE } from "@/server/data/store";
import { tempWorkspace } from "@/test/support/agent/harness";
import { scriptedModel, toolResults } from "@/test/support/agent/scripted-model";
import { openSession, recordEvents, request, runtimeWith, startHarness, waitFor, type Harness } from "@/test/support/server/app-harness";
import { dataOf } from "@/test/support/turn/agent-data";

/**
 * Approval through the real server, sockets and database: every tab of the owner sees a
 * pending approval and the decision, whichever tab made it; a stranger cannot decide;
 * the decision is stored with the call and comes back on reload; and a restart while an
 * approval waits ends it, saying so.
 */

let harness: Harness;
let ws: Awaited<ReturnType<typeof tempWorkspace>>;
const model = scriptedModel((req) => {
  const results = toolResults(req.messages);
  if (results.length > 0) return { text: `Result: ${results[0]!.content}` };
  return {
    text: "Fixing the typo.",
    toolCalls: [{ id: "e1", name: "file_edit", args: { path: "notes.md", old_string: "tied", new_string: "tide" } }],
  };
});

beforeAll(async () => {
  ws = await tempWorkspace({ "notes.md": "The tied is high.\n" });
  harness = await startHarness("approval", { runner: runtimeWith(model, { tools: createWorkspaceTools(), workspaceDir: ws.dir }) });
});
afterAll(async () => {
  await harness?.close();
  await ws?.cleanup();
});

const approvalsIn = (events: SessionEvent[]) => dataOf(events, "approval");
const masterCall = (turns: { steps: { toolCalls: ToolCall[] }[] }[]) => turns[0]!.steps[0]!.toolCalls[0]!;

describe("approval through the server", () => {
  it("a second tab of the owner denies with a reason; both tabs see it, a stranger cannot, and the reload keeps it", async () => {
    const { cookie, socket, sessionId } = await openSession(harness);
    const secondTab = await harness.client(cookie);
    const first = recordEvents(socket);
    const second = recordEvents(secondTab);
    for (const tab of [socket, secondTab]) expect((await request(tab, "session:join", { sessionId })).ok).toBe(true);
    await request(socket, "turn:send", { sessionId, text: "Fix the typo in notes.md" });
    await waitFor(() => approvalsIn(second).length === 1, 10_000, "the pending approval in the second tab");
    expect(approvalsIn(first)[0]!.approval).toMatchObject({ state: "pending", reason: "Fixing the typo." });
    expect(approvalsIn(second)[0]!.approval.preview).toContain("+The tide is high.");

    // A stranger who guesses the session and call id is told the chat does not exist.
    const stranger = await harness.client(await harness.newCookie());
    const refused = await request(stranger, "tool:decide", { sessionId, callId: "e1", decision: "approve" });
    expect(refused).toMatchObject({ ok: false, code: "not_found", message: "That chat does not exist." });

    const decided = await request(secondTab, "tool:decide", {
      sessionId,
      callId: "e1",
      runId: null,
      decision: "deny",
      reason: "Keep the old spelling",
    });
    expect(decided).toEqual({ ok: true, data: { callId: "e1" } });
    const ended = (events: SessionEvent[]) => events.some((e) => e.type === "turn:ended");
    await waitFor(() => ended(first) && ended(second), 10_000, "the turn end in both tabs");
    for (const events of [first, second]) {
      expect(approvalsIn(events).map((e) => e.approval.state)).toEqual(["pending", "denied"]);
      expect(approvalsIn(events)[1]!.approval).toMatchObject({ denyReason: "Keep the old spelling" });
    }
    const decidedBy = approvalsIn(first)[1]!.approval.decidedBy;
    expect(decidedBy).toMatch(/.+/);
    expect(await readFile(join(ws.dir, "notes.md"), "utf8")).toBe("The tied is high.\n");
    // The model read the denial with its reason.
    expect(toolResults(model.requests.at(-1)!.messages)[0]!.content).toMatch(/approval_denied.*Keep the old spelling/);

    // Deciding again is refused: nothing waits any more.
    const again = await request(socket, "tool:decide", { sessionId, callId: "e1", decision: "approve" });
    expect(again).toMatchObject({ ok: false, code: "not_found" });

    // Stored with the call, and shown after a reload from MongoDB alone.
    await (await harness.app.registry.peek(sessionId))?.drain();
    const row = await harness.models.ToolCall.findOne({ sessionId, callId: "e1" }).lean();
    expect(row?.approval).toMatchObject({ state: "denied", denyReason: "Keep the old spelling", decidedBy });
    const reload = await harness.client(cookie);
    const joined = await request(reload, "session:join", { sessionId });
    if (!joined.ok || joined.data.mode !== "snapshot") throw new Error("expected a snapshot");
    expect(masterCall(joined.data.turns)).toMatchObject({
      status: "error",
      approval: { state: "denied", denyReason: "Keep the old spelling", decidedBy },
    });
    expect(await harness.store.loadHistory(sessionId)).toStrictEqual(joined.data.turns);
  });

  it("a restart while an approval waits: the ghost sweep ends the run and the approval shows it ended unanswered", async () => {
    const { cookie, socket, sessionId } = await openSession(harness);
    const events = recordEvents(socket);
    expect((await request(socket, "session:join", { sessionId })).ok).toBe(true);
    await request(socket, "turn:send", { sessionId, text: "Fix the typo in notes.md" });
    await waitFor(() => approvalsIn(events).length === 1, 10_000, "the pending approval");
    await (await harness.app.registry.peek(sessionId))?.drain();

    // What MongoDB holds at this moment is what a process that died here leaves behind.
    const { Turn, ToolCall } = harness.models;
    const left = { turns: await Turn.find({ sessionId }).lean(), calls: await ToolCall.find({ sessionId }).lean() };
    expect(left.calls[0]!.approval?.state).toBe("pending");
    harness = await harness.restart();
    await Turn.deleteMany({ sessionId });
    await ToolCall.deleteMany({ sessionId });
    await Turn.insertMany(left.turns);
    await ToolCall.insertMany(left.calls);

    await harness.store.ghostSweep();
    const reload = await harness.client(cookie);
    const joined = await request(reload, "session:join", { sessionId });
    if (!joined.ok || joined.data.mode !== "snapshot") throw new Error("expected a snapshot");
    const turn = joined.data.turns[0]!;
    expect(turn).toMatchObject({ status: "failed", error: expect.stringMatching(/restarted/) });
    expect(masterCall(joined.data.turns)).toMatchObject({
      status: "cancelled",
      approval: { state: "cancelled", note: GHOST_APPROVAL_NOTE },
    });
    expect(await request(reload, "tool:decide", { sessionId, callId: "e1", decision: "approve" })).toMatchObject({
      ok: false,
      code: "not_found",
    });
  });
});
