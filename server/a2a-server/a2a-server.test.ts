import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Role, TaskState, type AgentCard, type Message, type Task } from "@a2a-js/sdk";
import { ClientFactory, JsonRpcTransportFactory, type Client } from "@a2a-js/sdk/client";
import { MASTER_PROMPT_MARKER } from "@/lib/agent/prompts";
import { API_TOKEN_ROUTES, type ApiToken, type ApiTokenCreated, type ChatTurn } from "@/lib/contracts";
import { createWorkspaceTools } from "@/lib/tools";
import { tempWorkspace } from "@/test/support/agent/harness";
import { scriptedModel, systemOf, toolResults } from "@/test/support/agent/scripted-model";
import { request, runtimeWith, startHarness, waitFor, type Harness } from "@/test/support/server/app-harness";

/**
 * Delegate as an A2A server through everything real: the app on the test database with
 * A2A on, API tokens made over its JSON routes, and the SDK's own client. A task runs as
 * a turn of the token owner's chat: the caller sees it start, its subagents, its wait for
 * an approval, its answer and its end; the owner sees the chat in their list.
 */

/** "delegate …": the master hands the work to explore, then answers; "write …": the master writes a file (approval); "break …": the model fails. */
const model = scriptedModel((req) => {
  const system = systemOf(req);
  const results = toolResults(req.messages);
  const prompt = String(req.messages.findLast((m) => m.role === "user")?.content ?? "");
  if (!system.startsWith(MASTER_PROMPT_MARKER)) return { text: "Two files: a.md and b.md." };
  if (prompt.includes("break")) return { error: new Error("The model fell over") };
  if (results.length > 0) return { text: prompt.includes("write") ? "Written." : "The answer is 42." };
  if (prompt.includes("write"))
    return { text: "Writing it.", toolCalls: [{ id: "w1", name: "file_write", args: { path: "out.md", content: "hello\n" } }] };
  return { toolCalls: [{ id: "d1", name: "subagent", args: { agent: "explore", task: "list the files" } }] };
});

let harness: Harness;
let ws: Awaited<ReturnType<typeof tempWorkspace>>;

beforeAll(async () => {
  ws = await tempWorkspace({ "a.md": "a\n", "b.md": "b\n" });
  harness = await startHarness("a2a-server", {
    runner: runtimeWith(model, { tools: createWorkspaceTools(), workspaceDir: ws.dir }),
    a2a: { skills: [{ name: "explore", description: "Reads the workspace." }], heartbeatMs: 200 },
  });
});
afterAll(async () => {
  await harness?.close();
  await ws?.cleanup();
});

async function json<T>(res: Response): Promise<T> {
  return (await res.json()) as T;
}

async function makeToken(cookie: string, name = "caller"): Promise<string> {
  const res = await fetch(`${harness.baseUrl}${API_TOKEN_ROUTES.list}`, {
    method: "POST",
    headers: { cookie, "content-type": "application/json" },
    body: JSON.stringify({ name, scope: "a2a" }),
  });
  expect(res.status).toBe(200);
  return (await json<ApiTokenCreated>(res)).secret;
}

async function clientWith(token: string | undefined): Promise<Client> {
  const fetchImpl: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    if (token) headers.set("authorization", `Bearer ${token}`);
    return fetch(input, { ...init, headers });
  };
  return new ClientFactory({ transports: [new JsonRpcTransportFactory({ fetchImpl })] }).createFromUrl(harness.baseUrl);
}

function message(text: string, contextId = ""): { tenant: string; message: Message; configuration: undefined; metadata: undefined } {
  return {
    tenant: "",
    message: {
      messageId: randomUUID(),
      contextId,
      taskId: "",
      role: Role.ROLE_USER,
      parts: [{ content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "text/plain" }],
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
    },
    configuration: undefined,
    metadata: undefined,
  };
}

/** What a caller reads of a stream: each status with its text, each artifact's text, the task's ids. */
interface Seen {
  taskId: string;
  contextId: string;
  statuses: { state: TaskState; text: string }[];
  artifacts: { name: string; text: string }[];
}

/** `during` runs beside the stream (which goes on being read) once the task is known. */
async function stream(client: Client, text: string, during?: (seen: Seen) => Promise<unknown>): Promise<Seen> {
  const seen: Seen = { taskId: "", contextId: "", statuses: [], artifacts: [] };
  let action: Promise<unknown> | undefined;
  for await (const item of client.sendMessageStream(message(text))) {
    const payload = item.payload;
    if (payload?.$case === "task") Object.assign(seen, { taskId: payload.value.id, contextId: payload.value.contextId });
    if (payload?.$case === "statusUpdate") {
      const parts = payload.value.status?.message?.parts ?? [];
      seen.statuses.push({
        state: payload.value.status!.state,
        text: parts.map((p) => (p.content?.$case === "text" ? p.content.value : "")).join(""),
      });
    }
    if (payload?.$case === "artifactUpdate") {
      const artifact = payload.value.artifact!;
      seen.artifacts.push({
        name: artifact.name,
        text: artifact.parts.map((p) => (p.content?.$case === "text" ? p.content.value : "")).join(""),
      });
    }
    if (during && !action && seen.taskId) action = during(seen);
  }
  await action;
  return seen;
}

describe("Delegate as an A2A server", () => {
  it("serves a card that asks for a bearer token and streams, with the master as a skill", async () => {
    const res = await fetch(`${harness.baseUrl}/.well-known/agent-card.json`, { headers: { "a2a-version": "1.0" } });
    expect(res.status).toBe(200);
    const card = await json<AgentCard>(res);
    expect(card.name).toBe("Delegate");
    expect(card.capabilities?.streaming).toBe(true);
    expect(card.skills.map((s) => s.id)).toEqual(["delegate", "explore"]);
    expect(Object.values(card.securitySchemes)[0]?.scheme).toMatchObject({ $case: "httpAuthSecurityScheme", value: { scheme: "Bearer" } });
    expect(card.supportedInterfaces.map((i) => i.url)).toContain(`${harness.baseUrl}/a2a/jsonrpc`);
    expect(card.version).toMatch(/^\d+\.\d+\.\d+/);
    // A client of either protocol version finds the endpoint.
    const read: AgentCard = await (await clientWith(undefined)).getAgentCard();
    expect(read.name).toBe("Delegate");
  });

  it("runs a task as a turn of the owner's chat: working, the subagent's lines, the answer, completed", async () => {
    const cookie = await harness.newCookie();
    const client = await clientWith(await makeToken(cookie));
    const seen = await stream(client, "delegate the file listing");
    expect(seen.statuses.map((s) => s.state)).toContain(TaskState.TASK_STATE_WORKING);
    const lines = seen.statuses.map((s) => s.text);
    expect(lines).toContain("Started in Delegate");
    expect(lines).toContain("explore: started list the files");
    expect(lines).toContain("explore: completed");
    expect(seen.artifacts).toEqual([{ name: "answer", text: "The answer is 42." }]);
    expect(seen.statuses.at(-1)!.state).toBe(TaskState.TASK_STATE_COMPLETED);

    // The owner's chat holds the turn, titled after the task.
    const socket = await harness.client(cookie);
    const list = await request(socket, "session:list", {});
    if (!list.ok) throw new Error(list.message);
    const mine = list.data.find((s) => s.title === "A2A: delegate the file listing");
    expect(mine).toBeDefined();
    await (await harness.app.registry.peek(mine!.sessionId))?.drain();
    const [turn] = (await harness.store.loadHistory(mine!.sessionId)) as [ChatTurn];
    expect(turn.prompt).toBe("delegate the file listing");
    expect(turn.status).toBe("completed");

    // The stored task answers tasks/get, with its answer.
    const task: Task = await client.getTask({ tenant: "", id: seen.taskId, historyLength: undefined });
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(task.artifacts.map((a) => a.name)).toEqual(["answer"]);
  });

  it("waits while a call needs the owner's approval, says so, and goes on when the owner approves in their chat", async () => {
    const cookie = await harness.newCookie();
    const client = await clientWith(await makeToken(cookie));
    const owner = await harness.client(cookie);
    const waiting = "Waiting for approval in Delegate: file_write";
    const seen = await stream(client, "write a greeting", async (now) => {
      // While it waits the task says so again and again: a caller's idle timeout sees it alive.
      await waitFor(() => now.statuses.filter((s) => s.text === waiting).length >= 3, 10_000, "the wait, said three times");
      return decideInChat(owner);
    });
    expect(seen.statuses.filter((s) => s.text === waiting).length).toBeGreaterThanOrEqual(3);
    expect(seen.artifacts).toEqual([{ name: "answer", text: "Written." }]);
    expect(seen.statuses.at(-1)!.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it("fails the task with the turn's error when the turn fails", async () => {
    const client = await clientWith(await makeToken(await harness.newCookie()));
    const seen = await stream(client, "break everything");
    expect(seen.artifacts).toEqual([]);
    const last = seen.statuses.at(-1)!;
    expect(last.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(last.text).toMatch(/fell over/);
  });

  it("cancels the turn when the caller cancels the task", async () => {
    const cookie = await harness.newCookie();
    const client = await clientWith(await makeToken(cookie));
    const seen = await stream(client, "write something to cancel", async (now) => {
      await waitFor(() => now.statuses.some((s) => s.text.startsWith("Waiting for approval")), 10_000, "the wait");
      const cancelled = await client.cancelTask({ tenant: "", id: now.taskId, metadata: undefined });
      expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
      return true;
    });
    expect(seen.statuses.at(-1)!.state).toBe(TaskState.TASK_STATE_CANCELED);
    const row = await harness.models.A2ATask.findById(seen.taskId).lean<{ sessionId: string }>();
    await (await harness.app.registry.peek(row!.sessionId))?.drain();
    const [turn] = (await harness.store.loadHistory(row!.sessionId)) as [ChatTurn];
    expect(turn.status).toBe("cancelled");
  });

  it("answers another owner's task id as not found", async () => {
    const owner = await clientWith(await makeToken(await harness.newCookie()));
    const seen = await stream(owner, "delegate again");
    const stranger = await clientWith(await makeToken(await harness.newCookie()));
    await expect(stranger.getTask({ tenant: "", id: seen.taskId, historyLength: undefined })).rejects.toThrow(/not found/i);
    await expect(stranger.cancelTask({ tenant: "", id: seen.taskId, metadata: undefined })).rejects.toThrow(/not found/i);
    const resubscribe = async () => {
      for await (const item of stranger.resubscribeTask({ tenant: "", id: seen.taskId })) void item;
    };
    await expect(resubscribe()).rejects.toThrow(/not found/i);
    const listOf = async (client: Client) =>
      (
        await client.listTasks({
          tenant: "",
          contextId: "",
          status: TaskState.TASK_STATE_UNSPECIFIED,
          pageToken: "",
          statusTimestampAfter: undefined,
        })
      ).tasks.map((t) => t.id);
    expect(await listOf(owner)).toEqual([seen.taskId]);
    expect(await listOf(stranger)).toEqual([]);
  });

  it("still answers a task after a restart, from what MongoDB holds", async () => {
    const cookie = await harness.newCookie();
    const secret = await makeToken(cookie);
    const seen = await stream(await clientWith(secret), "delegate before the restart");
    harness = await harness.restart();
    const task = await (await clientWith(secret)).getTask({ tenant: "", id: seen.taskId, historyLength: undefined });
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(task.artifacts[0]?.parts[0]?.content).toEqual({ $case: "text", value: "The answer is 42." });
  });

  it("refuses a call without a token, with a wrong one and with a revoked one", async () => {
    const cookie = await harness.newCookie();
    const secret = await makeToken(cookie);
    const post = (authorization?: string) =>
      fetch(`${harness.baseUrl}/a2a/jsonrpc`, {
        method: "POST",
        headers: { "content-type": "application/json", ...(authorization ? { authorization } : {}) },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "x" } }),
      });
    // One character off: the last one changed to another.
    const nearly = `${secret.slice(0, -1)}${secret.endsWith("A") ? "B" : "A"}`;
    for (const authorization of [undefined, "Bearer dlg_wrong", `Bearer ${nearly}`]) {
      const res = await post(authorization);
      expect(res.status).toBe(401);
      expect(await json<{ error: { code: number; message: string } }>(res)).toMatchObject({ error: { code: -32001 } });
    }
    const list = await json<{ tokens: ApiToken[] }>(await fetch(`${harness.baseUrl}${API_TOKEN_ROUTES.list}`, { headers: { cookie } }));
    expect(list.tokens).toHaveLength(1);
    expect(JSON.stringify(list)).not.toContain(secret);
    const revoked = await fetch(`${harness.baseUrl}${API_TOKEN_ROUTES.revoke(list.tokens[0]!.id)}`, {
      method: "POST",
      headers: { cookie },
    });
    expect(revoked.status).toBe(200);
    expect((await post(`Bearer ${secret}`)).status).toBe(401);
    await expect(stream(await clientWith(secret), "delegate once more")).rejects.toThrow();
  });
});

/** The owner approves the pending call from their own socket, as they would in the chat. */
async function decideInChat(owner: Awaited<ReturnType<Harness["client"]>>): Promise<true> {
  const list = await request(owner, "session:list", {});
  if (!list.ok) throw new Error(list.message);
  const sessionId = list.data[0]!.sessionId;
  expect((await request(owner, "session:join", { sessionId })).ok).toBe(true);
  const decided = await request(owner, "tool:decide", { sessionId, callId: "w1", runId: null, decision: "approve" });
  expect(decided.ok).toBe(true);
  return true;
}
