import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MASTER_PROMPT_MARKER } from "@/lib/agent/prompts";
import { API_TOKEN_ROUTES, type ApiTokenCreated, type ChatTurn } from "@/lib/contracts";
import { parseEnv } from "@/lib/env";
import { createWorkspaceTools } from "@/lib/tools";
import { buildRuntime } from "@/server/agent/build-runtime";
import { tempWorkspace } from "@/test/support/agent/harness";
import { scriptedModel, systemOf, toolResults } from "@/test/support/agent/scripted-model";
import {
  scriptedReply,
  startScriptedOpenAIServer,
  type ScriptedOpenAIServer,
  type ScriptedRequest,
} from "@/test/support/model/scripted-openai-server";
import { openSession, recordEvents, request, runtimeWith, startHarness, waitFor, type Harness } from "@/test/support/server/app-harness";

/**
 * Delegate delegating to Delegate: the caller app's operator definition "peer" is the
 * callee app's A2A card, with a token of the callee's owner. The callee runs the task as
 * a turn of its owner's chat, whose general subagent writes a file; the owner approves it
 * in their chat over their own socket, and the caller's run completes with the callee's
 * answer.
 */

const TOKEN_ENV = "DELEGATE_PEER_TOKEN_TEST";

/** The callee: its master hands the task to general, which writes greeting.md, then both answer. */
const calleeModel = scriptedModel((req) => {
  const system = systemOf(req);
  const results = toolResults(req.messages);
  if (system.startsWith(MASTER_PROMPT_MARKER)) {
    if (results.length > 0) return { text: "The greeting is written." };
    return { toolCalls: [{ id: "m-general", name: "subagent", args: { agent: "general", task: "write greeting.md" } }] };
  }
  if (results.length > 0) return { text: "Wrote greeting.md." };
  return { toolCalls: [{ id: "w2", name: "file_write", args: { path: "greeting.md", content: "Hello from the peer.\n" } }] };
});

const isMaster = (r: ScriptedRequest) => String(r.body?.messages?.[0]?.content ?? "").startsWith(MASTER_PROMPT_MARKER);

/** The caller's master: sends the task to "peer", then repeats what the peer answered. */
function callerEndpoint(r: ScriptedRequest) {
  if (!isMaster(r)) return scriptedReply({ text: ["(not the master)"] });
  const last = r.body.messages.at(-1);
  if (last.role === "tool")
    return scriptedReply({ text: [`The peer answered: ${String(last.content).includes("The greeting is written.") ? "written" : "?"}`] });
  return scriptedReply({
    toolCalls: [{ id: "c-peer", name: "subagent", argumentChunks: [JSON.stringify({ agent: "peer", task: "write a greeting" })] }],
  });
}

let callee: Harness;
let caller: Harness;
let master: ScriptedOpenAIServer;
let calleeWs: Awaited<ReturnType<typeof tempWorkspace>>;
let dir: string;
let ownerCookie: string;

beforeAll(async () => {
  calleeWs = await tempWorkspace({});
  callee = await startHarness("a2a-callee", {
    runner: runtimeWith(calleeModel, { tools: createWorkspaceTools(), workspaceDir: calleeWs.dir }),
    a2a: {},
  });
  // The callee's owner makes a token; the caller's operator puts it in the caller's environment.
  ownerCookie = await callee.newCookie();
  const made = await fetch(`${callee.baseUrl}${API_TOKEN_ROUTES.list}`, {
    method: "POST",
    headers: { cookie: ownerCookie, "content-type": "application/json" },
    body: JSON.stringify({ name: "the caller Delegate" }),
  });
  if (made.status !== 200) throw new Error(`token not made: ${made.status}`);
  process.env[TOKEN_ENV] = ((await made.json()) as ApiTokenCreated).secret;
  master = await startScriptedOpenAIServer(callerEndpoint);
  dir = await mkdtemp(path.join(tmpdir(), "delegate-peer-"));
  const file = path.join(dir, "subagents.json");
  const cardUrl = `${callee.baseUrl}/.well-known/agent-card.json`;
  await writeFile(file, JSON.stringify({ subagents: [{ name: "peer", a2a: { cardUrl, bearerTokenEnv: TOKEN_ENV } }] }));
  const env = parseEnv({
    MODEL: "caller-model",
    OPENAI_BASE_URL: master.url,
    OPENAI_API_KEY: "sk-caller",
    MODEL_TIMEOUT_MS: "5000",
    MODEL_MAX_RETRIES: "0",
    WORKSPACE_DIR: dir,
    SUBAGENTS_FILE: file,
    A2A_IDLE_TIMEOUT_MS: "20000",
  });
  const { runtime } = buildRuntime(env, { warn: () => undefined, info: () => undefined });
  caller = await startHarness("a2a-caller", { runner: runtime });
});
afterAll(async () => {
  delete process.env[TOKEN_ENV];
  await caller?.close();
  await callee?.close();
  await master?.close();
  await calleeWs?.cleanup();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Asks again every 50 ms (one request at a time) until `check` holds, for at most 15 s. */
async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  const end = Date.now() + 15_000;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("Delegate delegating to Delegate over A2A", () => {
  it("the callee's owner approves the write in their chat and the caller's run completes with the callee's answer", async () => {
    const { socket, sessionId } = await openSession(caller);
    const events = recordEvents(socket);
    expect((await request(socket, "session:join", { sessionId })).ok).toBe(true);
    expect((await request(socket, "turn:send", { sessionId, text: "Ask the peer for a greeting" })).ok).toBe(true);

    // The owner, in their own chat list on the callee, finds the A2A chat and approves the pending write.
    const owner = await callee.client(ownerCookie);
    let chatId = "";
    await until(async () => {
      const list = await request(owner, "session:list", {});
      chatId = (list.ok && list.data[0]?.sessionId) || "";
      return chatId !== "";
    }, "the A2A chat in the owner's list");
    // The call exists once the callee's subagent asked for it; until then the decision is refused.
    await until(
      async () => (await request(owner, "tool:decide", { sessionId: chatId, callId: "w2", decision: "approve" })).ok,
      "the approval",
    );

    await waitFor(() => events.some((e) => e.type === "turn:ended"), 30_000, "the caller's turn end");
    await (await caller.app.registry.peek(sessionId))?.drain();
    const [turn] = (await caller.store.loadHistory(sessionId)) as [ChatTurn];
    expect(turn.status).toBe("completed");
    const run = turn.steps[0]!.toolCalls.find((c) => c.callId === "c-peer")!.subagent!;
    expect(run.status).toBe("success");
    expect(run.response).toContain("The greeting is written.");
    // The run showed the callee's progress as its steps, the approval wait among them.
    expect(run.steps.map((s) => s.text).join("\n")).toContain("Waiting for approval in Delegate: file_write");
    expect(turn.steps.at(-1)!.text).toBe("The peer answered: written");
    expect(await readFile(path.join(calleeWs.dir, "greeting.md"), "utf8")).toBe("Hello from the peer.\n");

    // The callee's owner holds the turn in their chat, titled after the task.
    const list = await request(owner, "session:list", {});
    expect(list.ok && list.data.map((s) => s.title)).toEqual(["A2A: write a greeting"]);
  });
});
