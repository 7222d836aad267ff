import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { MASTER_PROMPT_MARKER } from "@/lib/agent/prompts";
import type { AttachmentRef, ChatTurn, ModelCallRecord, ModelCallSummary, SessionEvent } from "@/lib/contracts";
import { parseEnv } from "@/lib/env";
import { buildRuntime } from "@/server/agent/build-runtime";
import { TINY_PNG, uploadAttachment } from "@/test/support/attachments/files";
import { tinyPdf } from "@/test/support/attachments/tiny-pdf";
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
  startHarness,
  waitFor,
  type Harness,
  type TestClient,
} from "@/test/support/server/app-harness";

/**
 * A prompt that names its attachments, through everything real: the HTTP upload, the
 * socket command, the OpenAI adapter against an OpenAI-compatible server that lists one
 * model that reads images ("seer") and one that does not ("blind"), MongoDB, the audit
 * record. The master hands the files to a subagent, which reads the text and the PDF with
 * `file_read`; the PNG reaches "seer" as an image part and is only named to "blind".
 */

type WireMessage = { role: string; content: unknown; tool_call_id?: string };
const messagesOf = (r: ScriptedRequest): WireMessage[] => (r.body?.messages ?? []) as WireMessage[];
const isMaster = (r: ScriptedRequest) => String(messagesOf(r)[0]?.content ?? "").startsWith(MASTER_PROMPT_MARKER);
const toolMessages = (r: ScriptedRequest) => messagesOf(r).filter((m) => m.role === "tool");

function answer(r: ScriptedRequest) {
  const done = toolMessages(r);
  if (isMaster(r)) {
    if (done.length > 0) return scriptedReply({ text: ["The subagent read your files."] });
    const args = JSON.stringify({ agent: "explore", task: "Read attachments/notes.txt and attachments/tides.pdf and report them." });
    return scriptedReply({ toolCalls: [{ id: "m1", name: "subagent", argumentChunks: [args] }] });
  }
  if (done.length > 0) return scriptedReply({ text: [`Read: ${done.map((m) => String(m.content)).join(" | ")}`] });
  return scriptedReply({
    toolCalls: [
      { id: "s1", name: "file_read", argumentChunks: [JSON.stringify({ path: "attachments/notes.txt" })] },
      { id: "s2", name: "file_read", argumentChunks: [JSON.stringify({ path: "attachments/tides.pdf" })] },
    ],
  });
}

let server: ScriptedOpenAIServer;
let dir: string;
let harness: Harness;

beforeAll(async () => {
  server = await startScriptedOpenAIServer(answer, {
    models: [
      { id: "seer", object: "model", architecture: { input_modalities: ["text", "image"] } },
      { id: "blind", object: "model" },
    ],
  });
  dir = await mkdtemp(path.join(tmpdir(), "delegate-prompt-attachments-"));
  const file = path.join(dir, "endpoints.json");
  await writeFile(file, JSON.stringify({ default: "local/blind", endpoints: [{ id: "local", label: "Local", baseURL: server.url }] }));
  const env = parseEnv({ ENDPOINTS_FILE: file, MODEL_TIMEOUT_MS: "5000", MODEL_MAX_RETRIES: "0", WORKSPACE_DIR: dir });
  const { runtime, catalog } = buildRuntime(env, { warn: () => undefined, info: () => undefined }, () => undefined);
  harness = await startHarness("prompt_attachments", { runner: runtime, catalog });
});
afterAll(async () => {
  await harness?.close();
  await server?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function attach(cookie: string, sessionId: string): Promise<AttachmentRef[]> {
  const files: [string, Uint8Array | string][] = [
    ["notes.txt", "The tide turns at noon.\n"],
    ["tides.pdf", tinyPdf(["Moon phases for June"])],
    ["photo.png", TINY_PNG],
  ];
  const refs: AttachmentRef[] = [];
  for (const [name, bytes] of files) {
    const up = await uploadAttachment(harness.baseUrl, cookie, sessionId, name, bytes);
    expect(up.status).toBe(200);
    refs.push(up.body.attachment!);
  }
  return refs;
}

/** Sends and waits for the turn's end; answers the requests it made and the turn as a fresh join shows it. */
async function send(
  socket: TestClient,
  input: { sessionId: string; text: string; model: string; attachments: string[] },
): Promise<{ requests: ScriptedRequest[]; turn: ChatTurn }> {
  const before = server.requests.length;
  const events: SessionEvent[] = recordEvents(socket);
  await request(socket, "session:join", { sessionId: input.sessionId });
  const sent = await request(socket, "turn:send", input);
  if (!sent.ok) throw new Error(sent.message);
  await waitFor(() => events.some((e) => e.type === "turn:ended" && e.turnId === sent.data.turnId), 20_000, "the turn to end");
  await (await harness.app.registry.peek(input.sessionId))?.drain();
  const joined = await request(socket, "session:join", { sessionId: input.sessionId });
  if (!joined.ok || joined.data.mode !== "snapshot") throw new Error("no snapshot");
  return { requests: server.requests.slice(before), turn: joined.data.turns.find((t) => t.turnId === sent.data.turnId)! };
}

async function getJson<T>(cookie: string, url: string): Promise<T> {
  const res = await fetch(`${harness.baseUrl}${url}`, { headers: { cookie } });
  expect(res.status).toBe(200);
  return (await res.json()) as T;
}

describe("a prompt with attachments", () => {
  it("on a model that reads images: the PNG is an image part of the master's message, the record shows a placeholder, the subagent reads the text and the PDF; then on one that does not, the image is only named", async () => {
    const { cookie, socket, sessionId } = await openSession(harness);
    const refs = await attach(cookie, sessionId);
    const ids = refs.map((r) => r.attachmentId);

    const seen = await send(socket, { sessionId, text: "What do these say?", model: "local/seer", attachments: ids });
    expect(seen.turn.status).toBe("completed");
    expect(seen.turn.attachments?.map((a) => a.name)).toEqual(["notes.txt", "tides.pdf", "photo.png"]);
    expect(seen.turn.attachments).toEqual(refs);

    const master = seen.requests.find(isMaster)!;
    expect(master.body.model).toBe("seer");
    const user = messagesOf(master).at(-1)!;
    expect(user.role).toBe("user");
    const parts = user.content as { type: string; text?: string; image_url?: { url: string } }[];
    expect(parts.map((p) => p.type)).toEqual(["text", "image_url"]);
    expect(parts[0]!.text).toMatch(/^What do these say\?\n\n\[The person attached these files to this message:/);
    expect(parts[0]!.text).toContain("- attachments/notes.txt (text, 24 B)");
    expect(parts[0]!.text).toContain("- attachments/photo.png (image/png, 70 B): an image, shown with this message");
    expect(parts[1]!.image_url!.url).toBe(`data:image/png;base64,${TINY_PNG.toString("base64")}`);

    // The subagent read both files through file_read.
    const child = seen.requests.filter((r) => !isMaster(r)).at(-1)!;
    const read = toolMessages(child).map((m) => String(m.content));
    expect(read[0]).toContain("1\tThe tide turns at noon.");
    expect(read[1]).toContain("2\tMoon phases for June");
    expect(seen.turn.steps.at(-1)!.text).toBe("The subagent read your files.");

    // The audit record of the master's first request: the placeholder, never the base64.
    let calls: ModelCallSummary[] = [];
    await vi.waitFor(
      async () => {
        calls = (await getJson<{ calls: ModelCallSummary[] }>(cookie, `/api/sessions/${sessionId}/model-calls?turn=${seen.turn.turnId}`))
          .calls;
        expect(calls.some((c) => c.runId === null && c.index === 0)).toBe(true);
      },
      { timeout: 20_000, interval: 50 },
    );
    const first = calls.find((c) => c.runId === null && c.index === 0)!;
    const record = (await getJson<{ call: ModelCallRecord }>(cookie, `/api/sessions/${sessionId}/model-calls/${first.callId}`)).call;
    const recorded = record.request.messages.at(-1)!;
    expect(recorded.content).toContain("What do these say?");
    expect(recorded.content).toContain("[image: photo.png, image/png, 70 B]");
    expect(JSON.stringify(record)).not.toContain(TINY_PNG.toString("base64"));

    // The same files to a model that reads no images: named in text, no image part anywhere.
    const blind = await send(socket, { sessionId, text: "And now?", model: "local/blind", attachments: ids });
    expect(blind.turn.status).toBe("completed");
    const blindMaster = blind.requests.find(isMaster)!;
    expect(blindMaster.body.model).toBe("blind");
    expect(JSON.stringify(blind.requests.map((r) => r.body))).not.toContain("image_url");
    const last = messagesOf(blindMaster).at(-1)!;
    expect(typeof last.content).toBe("string");
    expect(last.content).toContain("- attachments/photo.png (image/png, 70 B): the person attached this image; you cannot see it");
    // The earlier prompt, rebuilt from history, names its image without sending it again.
    const earlier = messagesOf(blindMaster).find((m) => m.role === "user" && String(m.content).startsWith("What do these say?"))!;
    expect(earlier.content).toContain(
      "- attachments/photo.png (image/png, 70 B): an image that was shown with this message when it was sent",
    );
    socket.disconnect();
  });

  it("a regenerated or edited prompt keeps the files it named: the image reaches the model again, the chips stay", async () => {
    const { cookie, socket, sessionId } = await openSession(harness);
    const [, , photo] = await attach(cookie, sessionId);
    const first = await send(socket, { sessionId, text: "What is in the photo?", model: "local/seer", attachments: [photo!.attachmentId] });
    const again = async (text?: string) => {
      const before = server.requests.length;
      const events: SessionEvent[] = recordEvents(socket);
      const target = { sessionId, turnId: first.turn.turnId, model: "local/seer" };
      const started =
        text === undefined ? await request(socket, "turn:regenerate", target) : await request(socket, "turn:edit", { ...target, text });
      if (!started.ok) throw new Error(started.message);
      const { turnId } = started.data;
      await waitFor(() => events.some((e) => e.type === "turn:ended" && e.turnId === turnId), 20_000, "the turn to end");
      const joined = await request(socket, "session:join", { sessionId });
      if (!joined.ok || joined.data.mode !== "snapshot") throw new Error("no snapshot");
      return { turn: joined.data.turns.find((t) => t.turnId === turnId)!, master: server.requests.slice(before).find(isMaster)! };
    };
    // Regenerated, then edited.
    for (const text of [undefined, "Describe the photo, please."]) {
      const { turn, master } = await again(text);
      expect(turn.attachments).toEqual([photo]);
      const parts = messagesOf(master).at(-1)!.content as { type: string; image_url?: { url: string } }[];
      expect(parts.map((p) => p.type)).toEqual(["text", "image_url"]);
      expect(parts[1]!.image_url!.url).toBe(`data:image/png;base64,${TINY_PNG.toString("base64")}`);
    }
    socket.disconnect();
  });

  it("refuses an attachment id of another chat, or of none, before any turn starts", async () => {
    const other = await openSession(harness);
    const [foreign] = await attach(other.cookie, other.sessionId);
    const { socket, sessionId } = await openSession(harness, other.cookie);
    const before = server.requests.length;
    for (const id of [foreign!.attachmentId, "no-such-attachment"]) {
      const sent = await request(socket, "turn:send", { sessionId, text: "Read this", attachments: [id] });
      expect(sent.ok).toBe(false);
      if (sent.ok) continue;
      expect(sent.code).toBe("bad_request");
      expect(sent.message).toMatch(/names an attachment this chat does not have/);
    }
    const twice = await request(socket, "turn:send", { sessionId, text: "Read this", attachments: ["a1", "a1"] });
    expect(twice.ok).toBe(false);
    expect(server.requests.length).toBe(before);
    expect(await harness.models.Turn.countDocuments({ sessionId })).toBe(0);
    socket.disconnect();
    other.socket.disconnect();
  });
});
