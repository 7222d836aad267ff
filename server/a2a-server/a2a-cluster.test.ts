import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Role, TaskState } from "@a2a-js/sdk";
import { ClientFactory, JsonRpcTransportFactory, type Client } from "@a2a-js/sdk/client";
import { API_TOKEN_ROUTES, type ApiTokenCreated } from "@/lib/contracts";
import { createWorkspaceTools } from "@/lib/tools";
import { tempWorkspace } from "@/test/support/agent/harness";
import { scriptedModel, toolResults } from "@/test/support/agent/scripted-model";
import { runtimeWith } from "@/test/support/server/app-harness";
import { startClusterApps, type ClusterApps } from "@/test/support/server/cluster-apps";

/**
 * Delegate as an A2A server scaled out: two app processes' worth on one database and one
 * real Redis. A task runs on the process that received it; another process answers its
 * `tasks/get` from MongoDB, and a `tasks/cancel` sent there stops the turn where it runs.
 */

/** The master writes a file (a call that waits for its owner's approval), then answers. */
const model = scriptedModel((req) =>
  toolResults(req.messages).length > 0
    ? { text: "Written." }
    : { text: "Writing.", toolCalls: [{ id: "w1", name: "file_write", args: { path: "out.md", content: "x\n" } }] },
);

let apps: ClusterApps;
let ws: Awaited<ReturnType<typeof tempWorkspace>>;

beforeAll(async () => {
  ws = await tempWorkspace({});
  apps = await startClusterApps("a2a-cluster", {
    count: 2,
    runnerFor: () => runtimeWith(model, { tools: createWorkspaceTools(), workspaceDir: ws.dir }),
    optionsFor: (db) => ({ apiTokens: db.models.ApiToken, a2aServer: { tasks: db.models.A2ATask, skills: [] } }),
  });
});
afterAll(async () => {
  await apps?.close();
  await ws?.cleanup();
});

function clientOf(baseUrl: string, token: string): Promise<Client> {
  const fetchImpl: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set("authorization", `Bearer ${token}`);
    return fetch(input, { ...init, headers });
  };
  return new ClientFactory({ transports: [new JsonRpcTransportFactory({ fetchImpl })] }).createFromUrl(baseUrl);
}

describe("the A2A server scaled out", () => {
  it("a cancel sent to another process stops the turn where it runs, and either process answers the task", async () => {
    const [a, b] = apps.members;
    const cookie = await a!.newCookie();
    const made = await fetch(`${a!.baseUrl}${API_TOKEN_ROUTES.list}`, {
      method: "POST",
      headers: { cookie, "content-type": "application/json" },
      body: JSON.stringify({ name: "caller" }),
    });
    const { secret } = (await made.json()) as ApiTokenCreated;
    const onA = await clientOf(a!.baseUrl, secret);
    const onB = await clientOf(b!.baseUrl, secret);

    const states: TaskState[] = [];
    const texts: string[] = [];
    let taskId = "";
    let cancelled: Promise<unknown> | undefined;
    const message = {
      messageId: randomUUID(),
      contextId: "",
      taskId: "",
      role: Role.ROLE_USER,
      parts: [{ content: { $case: "text" as const, value: "write a file" }, metadata: undefined, filename: "", mediaType: "text/plain" }],
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
    };
    for await (const item of onA.sendMessageStream({ tenant: "", message, configuration: undefined, metadata: undefined })) {
      const payload = item.payload;
      if (payload?.$case === "task") taskId = payload.value.id;
      if (payload?.$case === "statusUpdate") {
        states.push(payload.value.status!.state);
        const part = payload.value.status?.message?.parts[0]?.content;
        texts.push(part?.$case === "text" ? part.value : "");
      }
      if (!cancelled && texts.includes("Waiting for approval in Delegate: file_write")) {
        cancelled = onB.cancelTask({ tenant: "", id: taskId, metadata: undefined });
      }
    }
    expect(((await cancelled) as { status?: { state: TaskState } }).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect(states.at(-1)).toBe(TaskState.TASK_STATE_CANCELED);

    const row = await apps.db.models.A2ATask.findById(taskId).lean<{ sessionId: string }>();
    const [turn] = await apps.storedTurns(row!.sessionId);
    expect(turn!.status).toBe("cancelled");
    const seenFromB = await onB.getTask({ tenant: "", id: taskId, historyLength: undefined });
    expect(seenFromB.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
  });
});
