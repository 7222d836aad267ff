import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import mongoose from "mongoose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChatTurn, JoinResult } from "@/lib/contracts";
import { MASTER_PROMPT_MARKER } from "@/lib/agent/prompts";
import { createOpenAIModel } from "@/lib/model/openai-adapter";
import {
  scriptedReply,
  startScriptedOpenAIServer,
  type ScriptedOpenAIServer,
  type ScriptedRequest,
} from "@/test/support/model/scripted-openai-server";
import { openSession, recordEvents, request, runtimeWith, startHarness, waitFor, type Harness } from "@/test/support/server/app-harness";

/**
 * No MongoDB document may approach the 16 MB BSON limit. Five subagents each read
 * forty 256 KB files (50 MB in all) in one turn; the turn must store, and reload whole.
 */

const SUBAGENTS = 5;
const READS_EACH = 40;
const FILES = 10;
const BSON_LIMIT = 16 * 1024 * 1024;

let workspace: string;
let model: ScriptedOpenAIServer;
let harness: Harness;

type Msg = { role: string; content?: string };

/** A scripted model: the master spawns the subagents, each reads its files, all answer. */
function reply(req: ScriptedRequest) {
  const messages: Msg[] = req.body?.messages ?? [];
  const system = messages[0]?.content ?? "";
  const last = messages.at(-1);
  if (last?.role === "tool") return scriptedReply({ text: ["Read ", "everything."] });
  if (system.includes(MASTER_PROMPT_MARKER)) {
    return scriptedReply({
      toolCalls: Array.from({ length: SUBAGENTS }, (_, i) => ({
        id: `spawn${i}`,
        name: "subagent",
        argumentChunks: [JSON.stringify({ agent: "explore", task: `read batch ${i}` })],
      })),
    });
  }
  return scriptedReply({
    toolCalls: Array.from({ length: READS_EACH }, (_, j) => ({
      id: `read${j}`,
      name: "file_read",
      argumentChunks: [JSON.stringify({ path: `big/f${j % FILES}.txt` })],
    })),
  });
}

beforeAll(async () => {
  workspace = mkdtempSync(path.join(tmpdir(), "delegate-big-"));
  const line = `${"lorem ipsum dolor sit amet ".repeat(3)}\n`;
  const body = line.repeat(Math.ceil((300 * 1024) / line.length));
  for (let i = 0; i < FILES; i++) {
    const dir = path.join(workspace, "big");
    await import("node:fs").then((fs) => fs.mkdirSync(dir, { recursive: true }));
    writeFileSync(path.join(dir, `f${i}.txt`), body);
  }
  model = await startScriptedOpenAIServer((req) => reply(req));
  const chat = createOpenAIModel({ baseURL: model.url, apiKey: "test", model: "scripted", timeoutMs: 60_000, maxRetries: 0 });
  harness = await startHarness("largeturn", {
    runner: runtimeWith(chat, {
      workspaceDir: workspace,
      limits: {
        maxSpawnDepth: 3,
        maxChildrenPerAgent: 5,
        maxResultTokens: 4000,
        subagentTimeoutMs: 120_000,
        maxSteps: 10,
        contextTokens: 50_000_000,
        resultFooter: true,
        turnTimeoutMs: 600_000,
      },
    }),
  });
}, 60_000);

afterAll(async () => {
  await harness?.close();
  await model?.close();
  rmSync(workspace, { recursive: true, force: true });
});

describe("a 50 MB turn", () => {
  it("stores in documents far below the BSON limit and reloads whole", { timeout: 180_000 }, async () => {
    const { cookie, socket, sessionId } = await openSession(harness);
    const events = recordEvents(socket);
    await request(socket, "session:join", { sessionId });
    await request(socket, "turn:send", { sessionId, text: "read everything" });
    await waitFor(() => events.some((e) => e.type === "turn:ended"), 150_000, "the turn to end");
    const end = events.find((e) => e.type === "turn:ended");
    expect(end?.type === "turn:ended" && end.status).toBe("completed");
    await (await harness.app.registry.peek(sessionId))?.drain();

    // Everything the subagents read is stored, whole.
    const outputs = await harness.models.ToolOutput.find({ sessionId }, { data: 1 }).lean();
    const storedChars = outputs.reduce((sum, o) => sum + o.data.length, 0);
    expect(storedChars).toBeGreaterThan(50 * 1_000_000);

    // …and no single document comes near 16 MB.
    const { BSON } = mongoose.mongo;
    let largest = 0;
    for (const Model of Object.values(harness.models)) {
      for (const doc of await (Model as typeof harness.models.Turn).find({ sessionId }).lean())
        largest = Math.max(largest, BSON.calculateObjectSize(doc));
    }
    expect(largest).toBeLessThan(BSON_LIMIT / 4);

    // A reload gets every panel and every nested call, with previews…
    const fresh = await harness.client(cookie);
    const joined = await request(fresh, "session:join", { sessionId });
    const snapshot = (joined as { ok: true; data: JoinResult }).data;
    if (snapshot.mode !== "snapshot") throw new Error("expected a snapshot");
    const callsOf = (agent: { steps: ChatTurn["steps"] }) => agent.steps.flatMap((s) => s.toolCalls);
    const panels = callsOf(snapshot.turns[0]!).map((c) => c.subagent);
    expect(panels).toHaveLength(SUBAGENTS);
    for (const panel of panels) {
      expect(panel?.status).toBe("success");
      expect(callsOf(panel!)).toHaveLength(READS_EACH);
      for (const call of callsOf(panel!)) {
        expect(call.responseSize).toBeGreaterThan(250 * 1024);
        expect(call.response.length).toBeLessThan(call.responseSize);
      }
    }
    // …and "show all" returns one output whole, pinned to its run (call ids repeat across runs).
    const panel = panels[1]!;
    const call = callsOf(panel)[3]!;
    const query = `turn=${snapshot.turns[0]!.turnId}&run=${panel.runId}`;
    const res = await fetch(`${harness.baseUrl}/api/sessions/${sessionId}/tool-calls/${call.callId}?${query}`, { headers: { cookie } });
    const full = (await res.json()) as { response: string };
    expect(full.response.length).toBe(call.responseSize);
    expect(full.response.startsWith(call.response)).toBe(true);
    expect(full.response).toContain("big/f3.txt");
  });
});
