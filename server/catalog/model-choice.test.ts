import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MASTER_PROMPT_MARKER, CHAT_INSTRUCTIONS_HEADING } from "@/lib/agent/prompts";
import type { ChatTurn, ModelCatalog, SessionEvent } from "@/lib/contracts";
import { parseEnv } from "@/lib/env";
import { buildRuntime } from "@/server/agent/build-runtime";
import {
  scriptedReply,
  startScriptedOpenAIServer,
  type ScriptedOpenAIServer,
  type ScriptedRequest,
} from "@/test/support/model/scripted-openai-server";
import { freePort } from "@/test/support/free-port";
import {
  openSession,
  recordEvents,
  request,
  startHarness,
  waitFor,
  type Harness,
  type TestClient,
} from "@/test/support/server/app-harness";

/**
 * Picking a chat's model, through the real wiring: buildRuntime from an endpoints file,
 * the real server and database, and two real OpenAI-compatible HTTP servers. Alpha lists
 * two models on `GET /models` (one reads images); Beta is not asked and offers the one model
 * its entry names. Each turn must go to the endpoint and model its chat chose, with that
 * endpoint's key only, and name that model wherever the turn is shown again.
 */

const ALPHA_KEY = "sk-alpha-0001";
const BETA_KEY = "sk-beta-0002";
const isMaster = (r: ScriptedRequest) => String(r.body?.messages?.[0]?.content ?? "").startsWith(MASTER_PROMPT_MARKER);
const answer = (who: string) => (r: ScriptedRequest) =>
  scriptedReply({ text: [`${who} ${String(r.body?.model)} answers.`], usage: { promptTokens: 10, completionTokens: 4 } });

let alpha: ScriptedOpenAIServer;
let beta: ScriptedOpenAIServer;
let dir: string;
let harness: Harness;

beforeAll(async () => {
  alpha = await startScriptedOpenAIServer(answer("Alpha"), {
    models: [
      { id: "model-a", object: "model", context_length: 128_000, architecture: { input_modalities: ["text", "image"] } },
      { id: "model-b", object: "model" },
    ],
  });
  beta = await startScriptedOpenAIServer(answer("Beta"));
  dir = await mkdtemp(path.join(tmpdir(), "delegate-endpoints-"));
  const file = path.join(dir, "endpoints.json");
  await writeFile(
    file,
    JSON.stringify({
      default: "alpha/model-b",
      endpoints: [
        { id: "alpha", label: "Alpha", baseURL: alpha.url, apiKeyEnv: "ALPHA_KEY" },
        {
          id: "beta",
          label: "Beta",
          baseURL: beta.url,
          apiKeyEnv: "BETA_KEY",
          list: false,
          models: [{ id: "model-c", label: "Model C", contextTokens: 32_000, prices: { inputPerMTok: 1, outputPerMTok: 2 } }],
        },
        // Nothing listens there: its listing fails, its configured model stays on offer.
        { id: "gone", label: "Gone", baseURL: `http://127.0.0.1:${await freePort()}/v1`, models: [{ id: "model-z" }] },
      ],
    }),
  );
  const env = parseEnv({ ENDPOINTS_FILE: file, MODEL_TIMEOUT_MS: "5000", MODEL_MAX_RETRIES: "0", WORKSPACE_DIR: dir });
  const keys: Record<string, string> = { ALPHA_KEY, BETA_KEY };
  const { runtime, catalog } = buildRuntime(env, { warn: () => undefined, info: () => undefined }, (name) => keys[name]);
  harness = await startHarness("model-choice", { runner: runtime, catalog });
});
afterAll(async () => {
  await harness?.close();
  await alpha?.close();
  await beta?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function send(socket: TestClient, sessionId: string, text: string, model?: string): Promise<ChatTurn> {
  const events: SessionEvent[] = recordEvents(socket);
  // Joined first: a chat's events reach the sockets in its room.
  await request(socket, "session:join", { sessionId });
  const sent = await request(socket, "turn:send", { sessionId, text, ...(model ? { model } : {}) });
  if (!sent.ok) throw new Error(sent.message);
  await waitFor(() => events.some((e) => e.type === "turn:ended" && e.turnId === sent.data.turnId), 20_000, "the turn to end");
  const joined = await request(socket, "session:join", { sessionId });
  if (!joined.ok || joined.data.mode !== "snapshot") throw new Error("no snapshot");
  return joined.data.turns.find((t) => t.turnId === sent.data.turnId)!;
}

describe("the model catalog", () => {
  it("lists every endpoint's models: what Alpha lists with what it says of them, Beta's configured one, and the one of an endpoint that did not answer", async () => {
    const { socket } = await openSession(harness);
    const listed = await request(socket, "model:list", {});
    if (!listed.ok) throw new Error(listed.message);
    const catalog: ModelCatalog = listed.data;
    expect(catalog.models.map((m) => m.key)).toEqual(["alpha/model-a", "alpha/model-b", "beta/model-c", "gone/model-z"]);
    expect(catalog.models[0]).toMatchObject({ label: "model-a", endpointLabel: "Alpha", images: true, contextTokens: 128_000 });
    expect(catalog.models[1]).toMatchObject({ images: false });
    expect(catalog.models[2]).toMatchObject({
      label: "Model C",
      endpointLabel: "Beta",
      contextTokens: 32_000,
      prices: { inputPerMTok: 1 },
    });
    expect(catalog.defaultKey).toBe("alpha/model-b");
    expect(catalog.endpoints.map((e) => [e.id, e.source])).toEqual([
      ["alpha", "listed"],
      ["beta", "configured"],
      ["gone", "failed"],
    ]);
    expect(catalog.endpoints[2]!.error).toMatch(/unreachable/);
    // Beta's entry says not to ask it.
    expect(beta.listings).toBe(0);
    socket.disconnect();
  });
});

describe("a chat answered by one model, then another", () => {
  it("sends each turn to the chosen endpoint and model with that endpoint's key, and names the model in the turn, after a restart and in the exports", async () => {
    const { cookie, socket, sessionId } = await openSession(harness);
    const before = { alpha: alpha.requests.length, beta: beta.requests.length };

    const first = await send(socket, sessionId, "Who answers?", "alpha/model-a");
    expect(first.steps.at(-1)!.text).toBe("Alpha model-a answers.");
    expect(first.model).toBe("model-a via Alpha");
    const toAlpha = alpha.requests.slice(before.alpha).filter(isMaster);
    expect(toAlpha.map((r) => r.body.model)).toEqual(["model-a"]);
    expect(toAlpha[0]!.headers.authorization).toBe(`Bearer ${ALPHA_KEY}`);

    const second = await send(socket, sessionId, "And now?", "beta/model-c");
    expect(second.steps.at(-1)!.text).toBe("Beta model-c answers.");
    expect(second.model).toBe("Model C via Beta");
    const toBeta = beta.requests.slice(before.beta).filter(isMaster);
    expect(toBeta.map((r) => r.body.model)).toEqual(["model-c"]);
    expect(toBeta[0]!.headers.authorization).toBe(`Bearer ${BETA_KEY}`);
    // Beta's turn cost is priced with Beta's prices (1 and 2 USD per million tokens).
    expect(second.stats.cost).toBeCloseTo((10 * 1 + 4 * 2) / 1e6, 12);
    // Alpha got nothing more.
    expect(alpha.requests.slice(before.alpha).filter(isMaster)).toHaveLength(1);

    // A follow-up without naming a model stays on the chat's choice.
    const third = await send(socket, sessionId, "Still you?");
    expect(third.model).toBe("Model C via Beta");
    socket.disconnect();

    // A fresh process knows only what MongoDB holds.
    harness = await harness.restart();
    const again = await harness.client(cookie);
    const joined = await request(again, "session:join", { sessionId });
    if (!joined.ok || joined.data.mode !== "snapshot") throw new Error("no snapshot");
    expect(joined.data.turns.map((t) => t.model)).toEqual(["model-a via Alpha", "Model C via Beta", "Model C via Beta"]);
    const settings = await request(again, "chat:settings", { sessionId });
    expect(settings.ok && settings.data.model).toBe("beta/model-c");

    const json = (await (
      await fetch(`${harness.baseUrl}/api/sessions/${sessionId}/export?format=json`, { headers: { cookie } })
    ).json()) as {
      turns: { turn: ChatTurn }[];
    };
    expect(json.turns.map((t) => t.turn.model)).toEqual(["model-a via Alpha", "Model C via Beta", "Model C via Beta"]);
    const markdown = await (
      await fetch(`${harness.baseUrl}/api/sessions/${sessionId}/export?format=markdown`, { headers: { cookie } })
    ).text();
    expect(markdown).toContain("model-a via Alpha · ");
    expect(markdown).toContain("Model C via Beta · ");
    again.disconnect();
  });

  it("starts a person's next chat on the model they picked last, and another person's on the operator's default", async () => {
    const { cookie, socket, sessionId } = await openSession(harness);
    const picked = await request(socket, "chat:configure", { sessionId, model: "alpha/model-a" });
    expect(picked.ok && picked.data.model).toBe("alpha/model-a");
    const next = await request(socket, "session:create", {});
    if (!next.ok) throw new Error(next.message);
    const settings = await request(socket, "chat:settings", { sessionId: next.data.sessionId });
    expect(settings.ok && settings.data.model).toBe("alpha/model-a");
    const home = await request(socket, "chat:settings", {});
    expect(home.ok && home.data.model).toBe("alpha/model-a");
    socket.disconnect();

    const other = await openSession(harness);
    const theirs = await request(other.socket, "chat:settings", { sessionId: other.sessionId });
    expect(theirs.ok && theirs.data.model).toBe("alpha/model-b");
    // Another person's chat cannot be configured, and answers like a missing one.
    const foreign = await request(other.socket, "chat:configure", { sessionId, model: "alpha/model-b" });
    expect(foreign.ok).toBe(false);
    expect(!foreign.ok && foreign.code).toBe("not_found");
    other.socket.disconnect();
    expect(cookie).not.toBe(other.cookie);
  });

  it("refuses a model no endpoint offers, and leaves the chat's choice as it was", async () => {
    const { socket, sessionId } = await openSession(harness);
    await request(socket, "chat:configure", { sessionId, model: "beta/model-c" });
    const refused = await request(socket, "turn:send", { sessionId, text: "hi", model: "alpha/model-q" });
    expect(refused.ok).toBe(false);
    expect(!refused.ok && refused.message).toMatch(/"alpha\/model-q" is not offered here/);
    const settings = await request(socket, "chat:settings", { sessionId });
    expect(settings.ok && settings.data.model).toBe("beta/model-c");
    socket.disconnect();
  });
});

describe("a chat's own instructions", () => {
  it("are added to the master's system prompt of the chat's next requests, and gone once cleared", async () => {
    const { socket, sessionId } = await openSession(harness);
    const set = await request(socket, "chat:configure", { sessionId, model: "alpha/model-b", instructions: "  Answer in French.  " });
    expect(set.ok && set.data.instructions).toBe("Answer in French.");
    const start = alpha.requests.length;
    await send(socket, sessionId, "Hello");
    const system = String(alpha.requests.slice(start).find(isMaster)!.body.messages[0].content);
    expect(system.startsWith(MASTER_PROMPT_MARKER)).toBe(true);
    expect(system.endsWith(`${CHAT_INSTRUCTIONS_HEADING}\n\nAnswer in French.`)).toBe(true);

    const cleared = await request(socket, "chat:configure", { sessionId, instructions: "" });
    expect(cleared.ok && cleared.data.instructions).toBe("");
    const next = alpha.requests.length;
    await send(socket, sessionId, "Again");
    const after = String(alpha.requests.slice(next).find(isMaster)!.body.messages[0].content);
    expect(after).not.toContain(CHAT_INSTRUCTIONS_HEADING);
    expect(after).not.toContain("French");
    socket.disconnect();
  });
});
