import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SessionEvent } from "@/lib/contracts";
import { askTool } from "@/test/support/agent/ask-tool";
import { scriptedModel, toolResults } from "@/test/support/agent/scripted-model";
import { tempWorkspace } from "@/test/support/agent/harness";
import { request, runtimeWith, waitFor } from "@/test/support/server/app-harness";
import { liveView, startClusterApps, type ClusterApps } from "@/test/support/server/cluster-apps";
import { dataOf } from "@/test/support/turn/agent-data";

/**
 * A tool's question in a turn that runs on another process, with two apps on one database
 * and a real redis-server: answered from the process the person is connected to, the
 * answer reaches the owner (a refusal comes back as the owner said it) and every viewer
 * sees the same question and answer.
 */

let cluster: ClusterApps;
let ws: Awaited<ReturnType<typeof tempWorkspace>>;
const model = scriptedModel((req) => {
  const results = toolResults(req.messages);
  if (results.length > 0) return { text: `Result: ${results[0]!.content}` };
  return { toolCalls: [{ id: "q1", name: "pick_size", args: {} }] };
});

beforeAll(async () => {
  ws = await tempWorkspace();
  cluster = await startClusterApps("cluster-input", {
    count: 2,
    runnerFor: () => runtimeWith(model, { tools: [askTool()], workspaceDir: ws.dir }),
  });
});
afterAll(async () => {
  await cluster?.close();
  await ws?.cleanup();
});

const ended = (events: SessionEvent[]) => events.some((e) => e.type === "turn:ended");

describe("a question waiting in a turn on another process", () => {
  it("is shown on B and answered from B: a bad answer is refused as the owner says, the good one reaches the tool", async () => {
    const [a, b] = cluster.members;
    const cookie = await a!.newCookie();
    const socket = await a!.client(cookie);
    const created = await request(socket, "session:create", {});
    if (!created.ok) throw new Error(created.message);
    const { sessionId } = created.data;
    const onA = liveView(socket, sessionId);
    await onA.join();
    const onB = liveView(await b!.client(cookie), sessionId);
    await onB.join();
    await request(socket, "turn:send", { sessionId, text: "Order me a shirt" });
    await waitFor(() => dataOf(onB.events, "input").length > 0, 10_000, "the question on B");

    const socketB = await b!.client(cookie);
    expect(await request(socketB, "tool:answer", { sessionId, callId: "q1", action: "accept", content: { size: "xl" } })).toMatchObject({
      ok: false,
      code: "bad_request",
      message: expect.stringContaining('Size must be one of "s", "m", "l"'),
    });
    expect(
      await request(socketB, "tool:answer", { sessionId, callId: "q1", runId: null, action: "accept", content: { size: "m" } }),
    ).toEqual({
      ok: true,
      data: { callId: "q1" },
    });
    await waitFor(() => ended(onA.events) && ended(onB.events), 10_000, "the end on both");
    const states = (events: SessionEvent[]) => dataOf(events, "input").map((d) => d.input.state);
    expect(states(onA.events)).toEqual(["pending", "accepted"]);
    expect(states(onB.events)).toEqual(["pending", "accepted"]);
    expect(toolResults(model.requests.at(-1)!.messages)[0]!.content).toBe("The person chose m.");
    expect(onB.sync().turns).toStrictEqual(await cluster.storedTurns(sessionId));
  });
});
