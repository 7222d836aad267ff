import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MASTER_PROMPT_MARKER } from "@/lib/agent/prompts";
import { scriptedModel, systemOf, type ScriptedModel } from "@/test/support/agent/scripted-model";
import { recordEvents, request, runtimeWith, waitFor } from "@/test/support/server/app-harness";
import { startClusterApps, type ClusterApps } from "@/test/support/server/cluster-apps";

/**
 * Two app processes' worth of apps on one database and one real Redis: a definition saved
 * through one is what the master of a turn on the other is offered, at once (each turn
 * reads the definitions from MongoDB as it starts; no process keeps a copy).
 */

let cluster: ClusterApps;
const models: ScriptedModel[] = [];
/** Which member ran each turn. */
const ranOn = new Map<string, number>();

beforeAll(async () => {
  cluster = await startClusterApps("agents-cluster", {
    count: 2,
    runnerFor: (index) => {
      const model = scriptedModel(() => ({ text: "done" }));
      models[index] = model;
      const runtime = runtimeWith(model);
      return {
        startTurn: (input) => {
          ranOn.set(input.turnId, index);
          return runtime.startTurn(input);
        },
      };
    },
  });
});
afterAll(async () => {
  await cluster?.close();
});

const subagentTool = (model: ScriptedModel) =>
  model.requests
    .filter((r) => systemOf(r).startsWith(MASTER_PROMPT_MARKER))
    .at(-1)
    ?.tools?.find((t) => t.name === "subagent")?.description ?? "";

describe("definitions across processes", () => {
  it("a definition saved through one process is offered to the next turn's master on the other", async () => {
    const [a, b] = cluster.members;
    const cookie = await a!.newCookie();
    const onA = await a!.client(cookie);
    const onB = await b!.client(cookie);
    const created = await request(onB, "session:create", {});
    if (!created.ok) throw new Error(created.message);
    const { sessionId } = created.data;

    const saved = await request(onA, "agent:create", {
      definition: { name: "auditor", description: "Audits the release plan", systemPrompt: "You audit." },
    });
    expect(saved).toMatchObject({ ok: true, data: { version: 1 } });

    await request(onB, "session:join", { sessionId });
    const events = recordEvents(onB);
    const sent = await request(onB, "turn:send", { sessionId, text: "hello" });
    if (!sent.ok) throw new Error(sent.message);
    await waitFor(() => events.some((e) => e.type === "turn:ended"), 20_000, "the turn's end");
    expect(ranOn.get(sent.data.turnId)).toBe(1);
    expect(subagentTool(models[1]!)).toContain("- auditor: Audits the release plan");

    // An edit through B reaches A's next turn the same way.
    if (!saved.ok) throw new Error(saved.message);
    await request(onB, "agent:update", {
      id: saved.data.id,
      definition: { name: "auditor", description: "Audits every plan", systemPrompt: "You audit." },
    });
    const created2 = await request(onA, "session:create", {});
    if (!created2.ok) throw new Error(created2.message);
    await request(onA, "session:join", { sessionId: created2.data.sessionId });
    const eventsA = recordEvents(onA);
    const sentA = await request(onA, "turn:send", { sessionId: created2.data.sessionId, text: "hello" });
    if (!sentA.ok) throw new Error(sentA.message);
    await waitFor(() => eventsA.some((e) => e.type === "turn:ended" && e.turnId === sentA.data.turnId), 20_000, "the turn's end on A");
    expect(ranOn.get(sentA.data.turnId)).toBe(0);
    expect(subagentTool(models[0]!)).toContain("- auditor: Audits every plan");
  });
});
