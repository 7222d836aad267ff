import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SessionEvent } from "@/lib/contracts";
import { MASTER_PROMPT_MARKER } from "@/lib/agent/prompts";
import { scriptedModel, systemOf, toolResults, type ScriptedModel } from "@/test/support/agent/scripted-model";
import { uploadAttachment } from "@/test/support/attachments/files";
import { tinyPdf } from "@/test/support/attachments/tiny-pdf";
import { openSession, recordEvents, request, runtimeWith, startHarness, waitFor, type Harness } from "@/test/support/server/app-harness";

/**
 * Agents read a chat's attachments through the file tools in a real turn: the master and a
 * subagent it spawns read `attachments/notes.txt` and the PDF's text, the master's prompt
 * names the files, a write under `attachments/` is refused, and another chat's turn sees
 * none of them.
 */

let harness: Harness;
let model: ScriptedModel;

beforeAll(async () => {
  model = scriptedModel((req) => {
    const done = toolResults(req.messages);
    if (!systemOf(req).startsWith(MASTER_PROMPT_MARKER)) {
      if (done.length === 0) return { toolCalls: [{ id: "s1", name: "file_read", args: { path: "attachments/notes.txt" } }] };
      return { text: `The subagent read: ${done[0]!.content}` };
    }
    if (done.length === 0) {
      return {
        toolCalls: [
          { id: "m1", name: "file_read", args: { path: "attachments/notes.txt" } },
          { id: "m2", name: "file_read", args: { path: "attachments/tides.pdf" } },
          { id: "m3", name: "file_write", args: { path: "attachments/x", content: "overwrite" } },
          { id: "m4", name: "list_files", args: { path: "attachments" } },
          { id: "m5", name: "subagent", args: { agent: "explore", task: "Read attachments/notes.txt and report it." } },
        ],
      };
    }
    return { text: "All read." };
  });
  harness = await startHarness("attach_turn", { runner: runtimeWith(model) });
});
afterAll(async () => {
  await harness?.close();
});

describe("agents read attachments", () => {
  it("the master and its subagent read the files; writes there are refused", async () => {
    const { cookie, socket, sessionId } = await openSession(harness);
    expect((await uploadAttachment(harness.baseUrl, cookie, sessionId, "notes.txt", "The tide turns at noon.\n")).status).toBe(200);
    const pdf = tinyPdf(["Moon phases for June"]);
    expect((await uploadAttachment(harness.baseUrl, cookie, sessionId, "tides.pdf", pdf)).status).toBe(200);

    const events: SessionEvent[] = recordEvents(socket);
    await request(socket, "session:join", { sessionId });
    await request(socket, "turn:send", { sessionId, text: "What do my files say?" });
    await waitFor(() => events.some((e) => e.type === "turn:ended"), 20_000, "the turn's end");

    const master = model.requests.find((r) => systemOf(r).startsWith(MASTER_PROMPT_MARKER))!;
    expect(systemOf(master)).toContain("The person attached files to this chat.");
    expect(systemOf(master)).toContain("- attachments/notes.txt\n- attachments/tides.pdf");

    // Everything the turn wrote is stored before it is read back.
    await (await harness.app.registry.peek(sessionId))?.drain();
    const calls = await harness.models.ToolCall.find({ sessionId }).lean();
    const byId = (callId: string) => calls.find((c) => c.callId === callId && c.runId === null);
    expect(byId("m1")).toMatchObject({ status: "success" });
    expect(byId("m1")!.response).toBe("attachments/notes.txt (lines 1-1, end of file):\n1\tThe tide turns at noon.");
    expect(byId("m2")!.response).toBe("attachments/tides.pdf (lines 1-2, end of file):\n1\t[page 1]\n2\tMoon phases for June");
    expect(byId("m3")).toMatchObject({ status: "error" });
    expect(byId("m3")!.response).toMatch(/attachments are read-only/);
    expect(byId("m4")!.response).toMatch(/attachments\/notes\.txt {2}\(24 B, text\)\nattachments\/tides\.pdf/);
    const sub = calls.find((c) => c.callId === "s1" && c.runId !== null);
    expect(sub).toMatchObject({ status: "success" });
    expect(sub!.response).toContain("1\tThe tide turns at noon.");
    const run = await harness.models.SubagentRun.findOne({ sessionId }).lean();
    expect(run?.response).toContain("The subagent read: attachments/notes.txt");
    // Nothing was written anywhere: the area has its two files, the workspace no attachments/x.
    expect((await harness.store.attachments.list(sessionId)).map((a) => a.name)).toEqual(["notes.txt", "tides.pdf"]);
  });

  it("another chat's turn has an empty area and no mention of attachments", async () => {
    const { socket, sessionId } = await openSession(harness);
    const before = model.requests.length;
    const events: SessionEvent[] = recordEvents(socket);
    await request(socket, "session:join", { sessionId });
    await request(socket, "turn:send", { sessionId, text: "anything?" });
    await waitFor(() => events.some((e) => e.type === "turn:ended"), 20_000, "the turn's end");
    const first = model.requests[before]!;
    expect(systemOf(first)).not.toContain("attached files");
    await (await harness.app.registry.peek(sessionId))?.drain();
    const calls = await harness.models.ToolCall.find({ sessionId, callId: "m1" }).lean();
    expect(calls[0]!.response).toMatch(/There is no attachment "notes\.txt" in this chat\. This chat has no attachments\./);
  });
});
