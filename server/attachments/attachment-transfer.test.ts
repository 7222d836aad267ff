import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ATTACHMENT_ROUTES, type ChatTurn, type SessionEvent } from "@/lib/contracts";
import { sessionFileSchema, type SessionFile } from "@/lib/export/session-file";
import { scriptedModel } from "@/test/support/agent/scripted-model";
import { TINY_PNG, uploadAttachment } from "@/test/support/attachments/files";
import { openSession, recordEvents, request, runtimeWith, startHarness, waitFor, type Harness } from "@/test/support/server/app-harness";

/**
 * A chat's attachments leaving it and arriving elsewhere: in its session file (version 2,
 * bytes as base64, the turns' refs beside them) and back through an import, which stores
 * them again as uploads and points the turns at the new ids; hostile files are refused
 * whole; a version 1 file still imports; and a fork copies the chat's attachments and points its turns at the copies.
 */

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness("attach_transfer", { runner: runtimeWith(scriptedModel(() => ({ text: "Seen." }))) });
});
afterAll(async () => {
  await harness?.close();
});

async function chatWithAttachments(): Promise<{ cookie: string; sessionId: string; turn: ChatTurn }> {
  const { cookie, socket, sessionId } = await openSession(harness);
  const notes = (await uploadAttachment(harness.baseUrl, cookie, sessionId, "notes.txt", "The tide turns at noon.\n")).body.attachment!;
  const photo = (await uploadAttachment(harness.baseUrl, cookie, sessionId, "photo.png", TINY_PNG)).body.attachment!;
  const events: SessionEvent[] = recordEvents(socket);
  await request(socket, "session:join", { sessionId });
  const sent = await request(socket, "turn:send", { sessionId, text: "Look", attachments: [photo.attachmentId, notes.attachmentId] });
  if (!sent.ok) throw new Error(sent.message);
  await waitFor(() => events.some((e) => e.type === "turn:ended"), 20_000, "the turn's end");
  await (await harness.app.registry.peek(sessionId))?.drain();
  const joined = await request(socket, "session:join", { sessionId });
  if (!joined.ok || joined.data.mode !== "snapshot") throw new Error("no snapshot");
  socket.disconnect();
  return { cookie, sessionId, turn: joined.data.turns[0]! };
}

async function exportFile(cookie: string, sessionId: string): Promise<SessionFile> {
  const res = await fetch(`${harness.baseUrl}/api/sessions/${sessionId}/export?format=json`, { headers: { cookie } });
  expect(res.status).toBe(200);
  return sessionFileSchema.parse(JSON.parse(await res.text()));
}

async function importFile(cookie: string, file: unknown): Promise<{ status: number; sessionId?: string; message?: string }> {
  const res = await fetch(`${harness.baseUrl}/api/sessions/import`, {
    method: "POST",
    headers: { cookie, origin: harness.baseUrl, "content-type": "application/json" },
    body: JSON.stringify(file),
  });
  const json = (await res.json()) as { session?: { sessionId: string }; error?: { message: string } };
  return { status: res.status, sessionId: json.session?.sessionId, message: json.error?.message };
}

async function download(cookie: string, sessionId: string, attachmentId: string): Promise<Buffer> {
  const res = await fetch(`${harness.baseUrl}${ATTACHMENT_ROUTES.one(sessionId, attachmentId)}`, { headers: { cookie } });
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

describe("attachments in the session file", () => {
  it("export carries the files and the prompt's refs; import stores them anew and points the turn at the new ids", async () => {
    const { cookie, sessionId, turn } = await chatWithAttachments();
    expect(turn.attachments?.map((a) => a.name)).toEqual(["photo.png", "notes.txt"]);

    const file = await exportFile(cookie, sessionId);
    expect(file.version).toBe(2);
    expect(file.attachments?.map((a) => [a.name, a.kind, a.size])).toEqual([
      ["notes.txt", "text", 24],
      ["photo.png", "image", TINY_PNG.length],
    ]);
    expect(Buffer.from(file.attachments![1]!.base64, "base64").equals(TINY_PNG)).toBe(true);
    expect(file.turns[0]!.turn.attachments).toEqual(turn.attachments);

    const imported = await importFile(cookie, file);
    expect(imported.status).toBe(200);
    const copy = imported.sessionId!;
    const stored = await harness.store.attachments.list(copy);
    expect(stored.map((a) => a.name)).toEqual(["notes.txt", "photo.png"]);
    expect(stored.some((a) => turn.attachments!.some((old) => old.attachmentId === a.attachmentId))).toBe(false);
    const [importedTurn] = await harness.store.loadHistory(copy);
    expect(importedTurn!.attachments?.map((a) => a.name)).toEqual(["photo.png", "notes.txt"]);
    // The refs name the new chat's files, which hold the same bytes.
    const photo = importedTurn!.attachments![0]!;
    expect(stored.find((a) => a.name === "photo.png")!.attachmentId).toBe(photo.attachmentId);
    expect((await download(cookie, copy, photo.attachmentId)).equals(TINY_PNG)).toBe(true);

    // Deleting the imported chat takes its attachments with it.
    const socket = await harness.client(cookie);
    expect((await request(socket, "session:delete", { sessionId: copy })).ok).toBe(true);
    socket.disconnect();
    expect(await harness.models.Attachment.countDocuments({ sessionId: copy })).toBe(0);
    expect(await harness.models.AttachmentChunk.countDocuments({ sessionId: copy })).toBe(0);
  });

  it("refuses a file whose attachments lie, are not allowed, or that names one it does not carry, and keeps nothing of it", async () => {
    const { cookie, sessionId } = await chatWithAttachments();
    const file = await exportFile(cookie, sessionId);
    const [notes, photo] = file.attachments!;
    const text = (s: string) => Buffer.from(s).toString("base64");
    const cases: [string, SessionFile, RegExp][] = [
      ["a ref to nothing", { ...file, attachments: [notes!] }, /names the attachment "photo\.png", which the file does not carry/],
      ["a size that lies", { ...file, attachments: [{ ...notes!, size: 5 }, photo!] }, /does not hold the 5 bytes it claims/],
      [
        "text claiming to be a PNG",
        { ...file, attachments: [notes!, { ...photo!, base64: text("not a picture"), size: 13 }] },
        /"photo\.png" in the file was refused: .*rename/i,
      ],
      [
        "bytes of no supported kind",
        { ...file, attachments: [notes!, { ...photo!, name: "photo", base64: Buffer.from([0, 1, 2, 0xff]).toString("base64"), size: 4 }] },
        /"photo" in the file was refused: "photo" is neither text, a PDF nor an image/,
      ],
      [
        "a kind the bytes are not",
        { ...file, attachments: [{ ...notes!, type: "application/pdf", kind: "pdf" }, photo!] },
        /is text\/plain, not the application\/pdf it claims/,
      ],
    ];
    const before = await harness.models.Session.countDocuments();
    const attachmentsBefore = await harness.models.Attachment.countDocuments();
    for (const [label, hostile, message] of cases) {
      const answer = await importFile(cookie, hostile);
      expect(answer.status, label).toBe(400);
      expect(answer.message, label).toMatch(message);
    }
    expect(await harness.models.Session.countDocuments()).toBe(before);
    expect(await harness.models.Attachment.countDocuments()).toBe(attachmentsBefore);

    // A path for a name is stored under its last segment.
    const renamed = await importFile(cookie, { ...file, attachments: [{ ...notes!, name: "../../etc/notes.txt" }, photo!] });
    expect(renamed.status).toBe(200);
    expect((await harness.store.attachments.list(renamed.sessionId!)).map((a) => a.name)).toEqual(["notes.txt", "photo.png"]);
  });

  it("still imports a version 1 file, which has no attachments", async () => {
    const { cookie, socket, sessionId } = await openSession(harness);
    const events: SessionEvent[] = recordEvents(socket);
    await request(socket, "session:join", { sessionId });
    await request(socket, "turn:send", { sessionId, text: "Plain" });
    await waitFor(() => events.some((e) => e.type === "turn:ended"), 20_000, "the turn's end");
    await (await harness.app.registry.peek(sessionId))?.drain();
    socket.disconnect();
    const file = await exportFile(cookie, sessionId);
    expect(file.attachments).toEqual([]);
    const { attachments: _, ...rest } = file;
    const v1 = { ...rest, version: 1, turns: file.turns.map((t) => ({ ...t, turn: { ...t.turn, model: undefined } })) };
    const imported = await importFile(cookie, v1);
    expect(imported.status).toBe(200);
    const [turn] = await harness.store.loadHistory(imported.sessionId!);
    expect(turn!.prompt).toBe("Plain");
    expect(turn!.attachments).toBeUndefined();
  });
});

describe("a fork's attachments", () => {
  it("are copied into the new chat, and its prompt's chips name the copies, which hold the same bytes", async () => {
    const { cookie, sessionId, turn } = await chatWithAttachments();
    const { socket } = await openSession(harness, cookie);
    const forked = await request(socket, "session:fork", { sessionId, turnId: turn.turnId });
    if (!forked.ok) throw new Error(forked.message);
    const fork = forked.data.sessionId;
    const joined = await request(socket, "session:join", { sessionId: fork });
    if (!joined.ok || joined.data.mode !== "snapshot") throw new Error("no snapshot");
    socket.disconnect();

    const copies = await harness.store.attachments.list(fork);
    expect(copies.map((a) => a.name).sort()).toEqual(["notes.txt", "photo.png"]);
    const refs = joined.data.turns[0]!.attachments!;
    expect(refs.map((a) => a.name)).toEqual(["photo.png", "notes.txt"]);
    // Each chip names a copy in the fork, not the original.
    const copyIds = new Set(copies.map((a) => a.attachmentId));
    for (const ref of refs) expect(copyIds.has(ref.attachmentId)).toBe(true);
    expect((await download(cookie, fork, refs[0]!.attachmentId)).equals(TINY_PNG)).toBe(true);
    expect((await download(cookie, fork, refs[1]!.attachmentId)).toString()).toBe("The tide turns at noon.\n");
    // The source chat keeps its own.
    expect((await harness.store.attachments.list(sessionId)).map((a) => a.attachmentId).sort()).toEqual(
      turn.attachments!.map((a) => a.attachmentId).sort(),
    );
  });
});
