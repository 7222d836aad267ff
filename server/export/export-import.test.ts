import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MASTER_PROMPT_MARKER } from "@/lib/agent/prompts";
import { MAX_TOOL_CALLS_PER_STEP, TOOL_RESPONSE_PREVIEW_CHARS, type ChatTurn, type SessionEvent } from "@/lib/contracts";
import { SESSION_FILE_VERSION, sessionFileSchema, type SessionFile } from "@/lib/export/session-file";
import { createOpenAIModel } from "@/lib/model/openai-adapter";
import {
  scriptedReply,
  startScriptedOpenAIServer,
  type ScriptedOpenAIServer,
  type ScriptedRequest,
} from "@/test/support/model/scripted-openai-server";
import {
  openSession,
  recordEvents,
  request,
  runtimeWith,
  startHarness,
  waitFor,
  type Harness,
  type TestClient,
} from "@/test/support/server/app-harness";

/**
 * Export and import through the real server and database: a chat made by a real turn
 * (the OpenAI adapter over HTTP, a subagent with a grandchild, a tool output far longer
 * than its preview) exports as a session file, imports as a new chat that exports again
 * to the same file (ids aside), and bad files are refused with a clear error and create
 * nothing.
 */

type WireMessage = { role: string; content: string | null };
const messagesOf = (r: ScriptedRequest): WireMessage[] => r.body.messages;
const isMaster = (r: ScriptedRequest) => String(messagesOf(r)[0]?.content ?? "").startsWith(MASTER_PROMPT_MARKER);
const BIG = Array.from({ length: 3_000 }, (_, i) => `line ${i}: the quick brown fox`).join("\n");

function handler(r: ScriptedRequest) {
  const messages = messagesOf(r);
  const last = messages.at(-1)!;
  const task = String(messages.find((m) => m.role === "user")?.content ?? "");
  const args = (value: unknown) => [JSON.stringify(value)];
  if (isMaster(r)) {
    if (last.role === "tool") return scriptedReply({ text: ["Done: the log has 3000 lines."] });
    return scriptedReply({
      text: ["Delegating. "],
      toolCalls: [{ id: "m1", name: "subagent", argumentChunks: args({ agent: "general", task: "TOP: count the log" }) }],
    });
  }
  if (task.includes("TOP")) {
    const steps = messages.filter((m) => m.role === "assistant").length;
    if (steps === 0)
      return scriptedReply({
        reasoning: ["thinking about it"],
        text: ["Reading and asking. "],
        toolCalls: [
          { id: "t1", name: "file_read", argumentChunks: args({ path: "big.log" }) },
          { id: "t2", name: "subagent", argumentChunks: args({ agent: "explore", task: "LEAF: list files" }) },
        ],
      });
    return scriptedReply({ text: ["The log has 3000 lines."] });
  }
  const steps = messages.filter((m) => m.role === "assistant").length;
  if (steps === 0)
    return scriptedReply({ text: ["Listing. "], toolCalls: [{ id: "l1", name: "list_files", argumentChunks: args({ path: "." }) }] });
  return scriptedReply({ text: ["One file: big.log."] });
}

let harness: Harness;
let server: ScriptedOpenAIServer;
let workspace: string;

beforeAll(async () => {
  workspace = mkdtempSync(path.join(tmpdir(), "delegate-export-"));
  writeFileSync(path.join(workspace, "big.log"), BIG);
  server = await startScriptedOpenAIServer(handler);
  const model = createOpenAIModel({ baseURL: server.url, model: "scripted", timeoutMs: 10_000, maxRetries: 0 });
  harness = await startHarness("export-import", {
    runner: runtimeWith(model, { workspaceDir: workspace }),
    importMaxBytes: 2 * 1024 * 1024,
  });
});
afterAll(async () => {
  await harness?.close();
  await server?.close();
  rmSync(workspace, { recursive: true, force: true });
});

async function runTurn(socket: TestClient, sessionId: string, text: string): Promise<void> {
  const events = recordEvents(socket);
  expect((await request(socket, "session:join", { sessionId })).ok).toBe(true);
  const sent = await request(socket, "turn:send", { sessionId, text });
  if (!sent.ok) throw new Error(sent.message);
  await waitFor(() => events.some((e: SessionEvent) => e.type === "turn:ended"), 20_000, "the turn to end");
}

async function exportText(
  cookie: string,
  sessionId: string,
  query = "format=json",
): Promise<{ status: number; text: string; headers: Headers }> {
  const res = await fetch(`${harness.baseUrl}/api/sessions/${sessionId}/export?${query}`, { headers: { cookie } });
  return { status: res.status, text: await res.text(), headers: res.headers };
}

async function importText(
  cookie: string,
  body: string,
  origin = harness.baseUrl,
): Promise<{ status: number; json: { session?: { sessionId: string; title: string }; error?: { code: string; message: string } } }> {
  const res = await fetch(`${harness.baseUrl}/api/sessions/import`, {
    method: "POST",
    headers: { cookie, origin, "content-type": "application/json" },
    body,
  });
  return { status: res.status, json: await res.json() };
}

/** The file with every generated id replaced by its order of appearance, and the export and chat creation times dropped (an import is a new chat). */
function normalised(file: SessionFile): unknown {
  const ids = new Map<string, string>();
  const id = (value: string) => {
    if (!ids.has(value)) ids.set(value, `#${ids.size}`);
    return ids.get(value)!;
  };
  const text = JSON.stringify({ ...file, exportedAt: "", session: { ...file.session, createdAt: "" } }, (key, value: unknown) =>
    typeof value === "string" &&
    ["turnId", "runId", "parentRunId", "retryOf", "sessionId", "callId"].includes(key) &&
    !/^[a-z]\d$/.test(value)
      ? id(value)
      : value,
  );
  return JSON.parse(text);
}

describe("export and import", () => {
  let cookie: string;
  let sessionId: string;
  let original: SessionFile;

  beforeAll(async () => {
    const opened = await openSession(harness);
    ({ cookie, sessionId } = opened);
    await runTurn(opened.socket, sessionId, "How long is the log?");
    await runTurn(opened.socket, sessionId, "How long is the log, again?");
    const exported = await exportText(cookie, sessionId);
    expect(exported.status).toBe(200);
    original = sessionFileSchema.parse(JSON.parse(exported.text));
  });

  it("exports every turn whole: nested processes, the full text of long tool outputs, and each model request", async () => {
    expect(original.turns).toHaveLength(2);
    const turn = original.turns[0]!;
    const top = turn.turn.steps[0]!.toolCalls[0]!.subagent!;
    const read = top.steps[0]!.toolCalls.find((c) => c.name === "file_read")!;
    expect(read.responseSize).toBeGreaterThan(TOOL_RESPONSE_PREVIEW_CHARS);
    expect(turn.toolOutputs.find((o) => o.callId === read.callId)?.text).toContain("line 2999: the quick brown fox");
    const leaf = top.steps[0]!.toolCalls.find((c) => c.name === "subagent")!.subagent!;
    expect(leaf).toMatchObject({ depth: 2, parentRunId: top.runId, status: "success", response: "One file: big.log." });
    expect(top.steps[0]!.thinking).toBe("thinking about it");
    // Two master requests, two of the top run, two of the leaf: each as sent.
    expect(turn.modelCalls.filter((c) => c.purpose === "chat")).toHaveLength(6);
    expect(turn.modelCalls.find((c) => c.runId === null && c.index === 1)!.request.messages.at(-1)).toMatchObject({
      role: "tool",
      toolCallId: "m1",
    });
  });

  it("imports as a new chat that exports again to the same file, ids aside, with the long output whole behind Show all", async () => {
    const before = await harness.models.Session.countDocuments({});
    const imported = await importText(cookie, JSON.stringify(original));
    expect(imported.status).toBe(200);
    const copy = imported.json.session!;
    expect(copy.sessionId).not.toBe(sessionId);
    expect(await harness.models.Session.countDocuments({})).toBe(before + 1);

    const again = sessionFileSchema.parse(JSON.parse((await exportText(cookie, copy.sessionId)).text));
    expect(normalised(again)).toEqual(normalised(original));
    // The timeline's times travel too: the master's steps, a subagent's steps and its calls.
    const master = again.turns[0]!.turn.steps[0]!;
    const nested = master.toolCalls[0]!.subagent!.steps[0]!;
    expect([
      master.startedAt,
      master.endedAt,
      nested.startedAt,
      nested.endedAt,
      nested.toolCalls[0]!.startedAt,
      nested.toolCalls[0]!.endedAt,
    ]).toEqual(Array(6).fill(expect.stringMatching(/^\d{4}-\d\d-\d\dT/)));
    // New ids: the copy shares no turn or run with the original.
    const runIds = (file: SessionFile): string[] => JSON.stringify(file).match(/"runId":"[^"]+"/g) ?? [];
    expect(runIds(again).filter((r) => runIds(original).includes(r))).toEqual([]);

    // Show all on the copy reads the whole output from the copy's own store.
    const call = again.turns[0]!.turn.steps[0]!.toolCalls[0]!.subagent!.steps[0]!.toolCalls.find((c) => c.name === "file_read")!;
    const run = again.turns[0]!.turn.steps[0]!.toolCalls[0]!.subagent!.runId;
    const res = await fetch(
      `${harness.baseUrl}/api/sessions/${copy.sessionId}/tool-calls/${call.callId}?turn=${again.turns[0]!.turn.turnId}&run=${run}`,
      { headers: { cookie } },
    );
    const whole = original.turns[0]!.toolOutputs.find((o) => o.callId === call.callId)!.text;
    expect(whole).toContain("line 2999: the quick brown fox");
    expect(whole.length).toBeGreaterThan(TOOL_RESPONSE_PREVIEW_CHARS);
    expect(((await res.json()) as { response: string }).response).toBe(whole);

    // A second import of the same file is a third chat, colliding with nothing.
    const twice = await importText(cookie, JSON.stringify(original));
    expect(twice.status).toBe(200);
    expect(normalised(sessionFileSchema.parse(JSON.parse((await exportText(cookie, twice.json.session!.sessionId)).text)))).toEqual(
      normalised(original),
    );
  });

  it("carries the chat's instructions and model choice, and reads a version 1 file (from before they were kept) as it was", async () => {
    const opened = await openSession(harness, cookie);
    await runTurn(opened.socket, opened.sessionId, "How long is the log?");
    const set = await request(opened.socket, "chat:configure", { sessionId: opened.sessionId, instructions: "Count in hex." });
    expect(set.ok).toBe(true);
    opened.socket.disconnect();
    const file = sessionFileSchema.parse(JSON.parse((await exportText(cookie, opened.sessionId)).text));
    expect(file.version).toBe(SESSION_FILE_VERSION);
    expect(file.session.instructions).toBe("Count in hex.");
    // Stored as it came: where no endpoint offers the key, the chat runs on its owner's default.
    const imported = await importText(cookie, JSON.stringify({ ...file, session: { ...file.session, model: "elsewhere/gpt-x" } }));
    expect(imported.status).toBe(200);
    expect(await harness.store.chatSettings(imported.json.session!.sessionId)).toEqual({
      model: "elsewhere/gpt-x",
      instructions: "Count in hex.",
    });

    // Version 1: no settings, no model on a turn. It imports, and exports again as version 2 with the same turns.
    const v1 = JSON.parse(JSON.stringify(original)) as Record<string, unknown> & SessionFile;
    v1.version = 1 as SessionFile["version"];
    for (const entry of v1.turns) delete entry.turn.model;
    const old = await importText(cookie, JSON.stringify(v1));
    expect(old.status).toBe(200);
    const again = sessionFileSchema.parse(JSON.parse((await exportText(cookie, old.json.session!.sessionId)).text));
    expect(again.version).toBe(2);
    expect(normalised({ ...again, version: 1 } as SessionFile)).toEqual(normalised(v1));
    expect(await harness.store.chatSettings(old.json.session!.sessionId)).toEqual({});
  });

  it("the Markdown transcript folds each subagent, and with markup carries the SubagentExecution markup", async () => {
    const md = await exportText(cookie, sessionId, "format=markdown");
    expect(md.status).toBe(200);
    expect(md.headers.get("content-type")).toMatch(/text\/markdown/);
    expect(md.headers.get("content-disposition")).toMatch(/attachment; filename=".+\.md"/);
    expect(md.text).toContain("### You\n\n> How long is the log?");
    expect(md.text).toMatch(/<details><summary>🤖 general: TOP: count the log \(done, /);
    expect(md.text).toMatch(/<details><summary>🤖 explore: LEAF: list files \(done, /);
    expect(md.text).toContain("<details><summary>🔧 file_read</summary>");
    expect(md.text).not.toContain("<SubagentExecution");
    const withMarkup = await exportText(cookie, sessionId, "format=markdown&markup=1");
    expect(withMarkup.text).toContain("<SubagentExecution");
    // The <details> tags balance: no model text closed a fold early.
    expect((md.text.match(/<details>/g) ?? []).length).toBe((md.text.match(/<\/details>/g) ?? []).length);
  });

  it("a file from before a stopped call had its own status imports with the call cancelled, and the new status imports too", async () => {
    // As an older server exported it: the leaf's call stopped while it ran, stored as an error saying so.
    const old: SessionFile = JSON.parse(JSON.stringify(original));
    const leafCall = (file: SessionFile) =>
      file.turns[0]!.turn.steps[0]!.toolCalls[0]!.subagent!.steps[0]!.toolCalls.find((c) => c.name === "subagent")!.subagent!.steps[0]!
        .toolCalls[0]!;
    const stopped = 'Error [cancelled]: "list_files" was stopped before it finished.';
    Object.assign(leafCall(old), { status: "error", response: stopped, responseSize: stopped.length });
    const imported = await importText(cookie, JSON.stringify(old));
    expect(imported.status).toBe(200);
    const again = sessionFileSchema.parse(JSON.parse((await exportText(cookie, imported.json.session!.sessionId)).text));
    expect(leafCall(again)).toMatchObject({ name: "list_files", status: "cancelled", response: stopped, responseSize: stopped.length });
    // A file that says cancelled in the status is a valid file, and stays so.
    const twice = await importText(cookie, JSON.stringify(again));
    expect(twice.status).toBe(200);
    expect(leafCall(sessionFileSchema.parse(JSON.parse((await exportText(cookie, twice.json.session!.sessionId)).text)))).toMatchObject({
      status: "cancelled",
      response: stopped,
    });
  });

  it("refuses bad files with a clear error and creates nothing", async () => {
    const count = () => harness.models.Session.countDocuments({});
    const before = await count();
    const turn = original.turns[0]!;
    const misplaced: ChatTurn = JSON.parse(JSON.stringify(turn.turn));
    misplaced.steps[0]!.toolCalls[0]!.subagent!.parentRunId = "someone-else";
    const crowded: ChatTurn = JSON.parse(JSON.stringify(turn.turn));
    const plain = { name: "grep", parameters: "{}", response: "ok", responseSize: 2, status: "success" as const };
    crowded.steps[0]!.toolCalls.push(...Array.from({ length: MAX_TOOL_CALLS_PER_STEP }, (_, i) => ({ ...plain, callId: `many${i}` })));
    const cases: [string, string, number, RegExp][] = [
      ["not JSON", "{ this is not json", 400, /not valid JSON/],
      ["another format", JSON.stringify({ format: "chatgpt", version: 1 }), 400, /Not a Delegate session file/],
      ["a future version", JSON.stringify({ ...original, version: 3 }), 400, /versions 1 and 2/],
      [
        "a turn without steps",
        JSON.stringify({ ...original, turns: [{ ...turn, turn: { ...turn.turn, steps: "none" } }] }),
        400,
        /turns\.0\.turn\.steps/,
      ],
      [
        "a run under the wrong parent",
        JSON.stringify({ ...original, turns: [{ ...turn, turn: misplaced }] }),
        400,
        /Turn 1 in the file is not consistent/,
      ],
      [
        "a step of too many tool calls",
        JSON.stringify({ ...original, turns: [turn, { ...turn, turn: crowded }] }),
        400,
        new RegExp(
          `^Turn 2, step 1 in the file holds ${crowded.steps[0]!.toolCalls.length} tool calls; a step may hold at most ${MAX_TOOL_CALLS_PER_STEP}\\.$`,
        ),
      ],
      [
        "a running turn",
        JSON.stringify({ ...original, turns: [{ ...turn, turn: { ...turn.turn, status: "running" } }] }),
        400,
        /still running/,
      ],
      ["nesting a million deep", "[".repeat(1_000_000), 400, /nests deeper/],
      ["too large", JSON.stringify({ ...original, padding: "x".repeat(3 * 1024 * 1024) }), 413, /larger than/],
    ];
    for (const [what, body, status, message] of cases) {
      const answer = await importText(cookie, body);
      expect(answer.status, what).toBe(status);
      expect(answer.json.error?.message, what).toMatch(message);
    }
    expect(await count()).toBe(before);
    // Cross-site: refused before the body is read.
    expect((await importText(cookie, JSON.stringify(original), "http://evil.example")).status).toBe(401);
    expect(await count()).toBe(before);
  });

  it("a stranger's export gets the same not_found as a chat that does not exist", async () => {
    const stranger = await harness.newCookie();
    const theirs = await exportText(stranger, sessionId);
    const none = await exportText(stranger, "nosuchchat");
    expect(theirs.status).toBe(404);
    expect(theirs.text).toBe(none.text);
    expect((await exportText(cookie, sessionId, "format=pdf")).status).toBe(400);
  });
});
