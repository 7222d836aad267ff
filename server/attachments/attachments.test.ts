import { createHash } from "node:crypto";
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AttachmentRef } from "@/lib/contracts";
import { createDemoModel } from "@/lib/model/demo-model";
import { TINY_PNG, uploadAttachment } from "@/test/support/attachments/files";
import { tinyPdf } from "@/test/support/attachments/tiny-pdf";
import { openSession, request, runtimeWith, startHarness, type Harness } from "@/test/support/server/app-harness";
import { AttachmentStore } from "./attachment-store";

/**
 * Attachments through the real server and database: what goes in comes out byte for
 * byte and is served so no browser runs it; every limit refuses with nothing half-stored;
 * nobody reaches another person's or another chat's files; a deleted chat takes them along.
 */

const MAX_BYTES = 300 * 1024;
const MAX_CHAT_BYTES = 700 * 1024;

let harness: Harness;
let cookie: string;
let sessionId: string;

beforeAll(async () => {
  harness = await startHarness("attachments", {
    runner: runtimeWith(createDemoModel({ chunkDelayMs: 0 })),
    attachmentLimits: { maxBytes: MAX_BYTES, maxChatBytes: MAX_CHAT_BYTES },
  });
  ({ cookie, sessionId } = await openSession(harness));
});
afterAll(async () => {
  await harness?.close();
});

const upload = (name: string, bytes: Uint8Array | string, session = sessionId, who = cookie) =>
  uploadAttachment(harness.baseUrl, who, session, name, bytes);
const get = (path: string, who = cookie) => fetch(`${harness.baseUrl}${path}`, { headers: { cookie: who } });
const list = async (session = sessionId, who = cookie) =>
  ((await (await get(`/api/sessions/${session}/attachments`, who)).json()) as { attachments: AttachmentRef[] }).attachments;
const counts = async (session: string) => ({
  attachments: await harness.models.Attachment.countDocuments({ sessionId: session }),
  chunks: await harness.models.AttachmentChunk.countDocuments({ sessionId: session }),
});

describe("round trips", () => {
  it("stores a text file and serves it back as a download of plain text", async () => {
    const text = "Tide at noon.\nMoon at dusk: été.\n";
    const { status, body } = await upload("notes.txt", text);
    expect(status).toBe(200);
    expect(body.attachment).toMatchObject({ name: "notes.txt", kind: "text", type: "text/plain", size: Buffer.byteLength(text) });
    expect(await list()).toContainEqual(body.attachment);

    const res = await get(`/api/sessions/${sessionId}/attachments/${body.attachment!.attachmentId}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(res.headers.get("content-disposition")).toBe(`attachment; filename="notes.txt"; filename*=UTF-8''notes.txt`);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("content-security-policy")).toBe("sandbox");
    expect(await res.text()).toBe(text);
    expect(await harness.store.attachments.text(sessionId, "notes.txt")).toBe(text);
  });

  it("numbers a second file of the same name", async () => {
    const { body } = await upload("Notes.txt", "again");
    expect(body.attachment?.name).toBe("Notes (2).txt");
  });

  it("stores a PDF, serves its bytes unchanged, and reads its text for agents", async () => {
    const pdf = tinyPdf(["Tide tables for June", "Second page: moon phases"]);
    const { status, body } = await upload("tides.pdf", pdf);
    expect(status).toBe(200);
    expect(body.attachment).toMatchObject({ name: "tides.pdf", kind: "pdf", type: "application/pdf", size: pdf.length });
    const res = await get(`/api/sessions/${sessionId}/attachments/${body.attachment!.attachmentId}`);
    expect(res.headers.get("content-type")).toBe("application/pdf");
    expect(res.headers.get("content-disposition")).toMatch(/^attachment; /);
    expect(Buffer.from(await res.arrayBuffer()).equals(pdf)).toBe(true);
    expect(await harness.store.attachments.text(sessionId, "tides.pdf")).toBe(
      "[page 1]\nTide tables for June\n\n[page 2]\nSecond page: moon phases",
    );
    const row = await harness.models.Attachment.findById(body.attachment!.attachmentId).lean();
    expect(row?.sha256).toBe(createHash("sha256").update(pdf).digest("hex"));
    expect(row?.textSize).toBeGreaterThan(40);
  });

  it("stores a PNG, serves it inline as an image, and describes it to agents", async () => {
    const { body } = await upload("dot.png", TINY_PNG);
    expect(body.attachment).toMatchObject({ kind: "image", type: "image/png", size: TINY_PNG.length });
    const res = await get(`/api/sessions/${sessionId}/attachments/${body.attachment!.attachmentId}`);
    expect(res.headers.get("content-type")).toBe("image/png");
    expect(res.headers.get("content-disposition")).toBe(`inline; filename="dot.png"; filename*=UTF-8''dot.png`);
    expect(Buffer.from(await res.arrayBuffer()).equals(TINY_PNG)).toBe(true);
    expect(await harness.store.attachments.text(sessionId, "dot.png")).toMatch(/^dot\.png is a PNG image \(\d+ B\) attached to this chat/);
  });

  it("splits a file over several chunks and joins them back", async () => {
    const big = Buffer.from("0123456789abcdef\n".repeat(17_000));
    const { body } = await upload("big.log", big);
    const chunks = await harness.models.AttachmentChunk.countDocuments({ attachmentId: body.attachment!.attachmentId });
    expect(chunks).toBe(2);
    const res = await get(`/api/sessions/${sessionId}/attachments/${body.attachment!.attachmentId}`);
    expect(Buffer.from(await res.arrayBuffer()).equals(big)).toBe(true);
  });

  it("names a download with a non-ASCII name in RFC 5987 form, with an ASCII fallback", async () => {
    const { body } = await upload("résumé (final)'s.txt", "cv");
    const res = await get(`/api/sessions/${sessionId}/attachments/${body.attachment!.attachmentId}`);
    expect(res.headers.get("content-disposition")).toBe(
      `attachment; filename="resume (final)'s.txt"; filename*=UTF-8''r%C3%A9sum%C3%A9%20%28final%29%27s.txt`,
    );
  });
});

describe("refusals leave nothing behind", () => {
  it("refuses a file over the per-file limit with 413, naming the limit", async () => {
    const { sessionId: chat } = await openSession(harness, cookie);
    const { status, body } = await upload("huge.txt", "x".repeat(MAX_BYTES + 1), chat);
    expect(status).toBe(413);
    expect(body.error).toMatchObject({ code: "too_large" });
    expect(body.error?.message).toMatch(/"huge\.txt" is larger than 300 KiB, the most one attachment may be \(ATTACHMENT_MAX_BYTES\)/);
    expect(await counts(chat)).toEqual({ attachments: 0, chunks: 0 });
  });

  it("cuts a chunked upload without a declared length when it passes the limit", async () => {
    const { sessionId: chat } = await openSession(harness, cookie);
    const url = new URL(`/api/sessions/${chat}/attachments?name=stream.txt`, harness.baseUrl);
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(url, { method: "POST", headers: { cookie, "transfer-encoding": "chunked" } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on("error", (error: NodeJS.ErrnoException) =>
        error.code === "EPIPE" || error.code === "ECONNRESET" ? undefined : reject(error),
      );
      const piece = Buffer.alloc(64 * 1024, "y");
      // Ten times the limit, if the server took it all; it answers long before.
      const pump = (left: number): void => {
        if (left === 0 || req.destroyed) return void req.end();
        if (req.write(piece)) pump(left - 1);
        else req.once("drain", () => pump(left - 1));
      };
      pump((10 * MAX_BYTES) / piece.length);
    });
    expect(status).toBe(413);
    expect(await counts(chat)).toEqual({ attachments: 0, chunks: 0 });
  });

  it("refuses what would pass the chat's total with 413, naming that limit", async () => {
    const { sessionId: chat } = await openSession(harness, cookie);
    const part = "z".repeat(250 * 1024);
    expect((await upload("a.txt", part, chat)).status).toBe(200);
    expect((await upload("b.txt", part, chat)).status).toBe(200);
    const before = await counts(chat);
    const { status, body } = await upload("c.txt", part, chat);
    expect(status).toBe(413);
    expect(body.error?.message).toMatch(
      /this chat holds 500 KiB of attachments, and a chat may hold at most 700 KiB \(ATTACHMENTS_MAX_CHAT_BYTES\)/,
    );
    expect(await counts(chat)).toEqual(before);
    expect((await list(chat)).map((a) => a.name)).toEqual(["a.txt", "b.txt"]);
  });

  it.each([
    [
      "a ZIP file",
      "archive.zip",
      Buffer.from([0x50, 0x4b, 3, 4, 20, 0, 0, 0, 8, 0]),
      /neither text, a PDF nor an image \(PNG, JPEG, GIF, WebP\)/,
    ],
    ["text with a NUL byte", "data.txt", Buffer.from("abc\0def"), /neither text/],
    ["a .txt that is a PDF", "notes.txt", tinyPdf(["x"]), /named as text \(\.txt\) but its content is a PDF/],
    ["a .png that is a PDF", "photo.png", tinyPdf(["x"]), /named as a PNG image \(\.png\) but its content is a PDF/],
  ])("refuses %s with 415", async (_, name, bytes, message) => {
    const { sessionId: chat } = await openSession(harness, cookie);
    const { status, body } = await upload(name, bytes, chat);
    expect(status).toBe(415);
    expect(body.error).toMatchObject({ code: "unsupported_type" });
    expect(body.error?.message).toMatch(message);
    expect(await counts(chat)).toEqual({ attachments: 0, chunks: 0 });
  });

  it("takes its chunks back when the metadata write fails", async () => {
    const { sessionId: chat } = await openSession(harness, cookie);
    const { Attachment, AttachmentChunk } = harness.models;
    const failing = {
      find: Attachment.find.bind(Attachment),
      deleteMany: Attachment.deleteMany.bind(Attachment),
      insertMany: () => Promise.reject(new Error("disk full")),
    } as unknown as typeof Attachment;
    const store = new AttachmentStore({ Attachment: failing, AttachmentChunk }, { maxBytes: MAX_BYTES, maxChatBytes: MAX_CHAT_BYTES });
    await expect(store.put(chat, "owner", { name: "big.txt", bytes: Buffer.alloc(280 * 1024, "q") })).rejects.toThrow("disk full");
    expect(await counts(chat)).toEqual({ attachments: 0, chunks: 0 });
  });
});

describe("confinement", () => {
  let attachmentId: string;
  let stranger: string;
  beforeAll(async () => {
    attachmentId = (await list()).find((a) => a.name === "notes.txt")!.attachmentId;
    stranger = await harness.newCookie();
  });

  it("answers another person exactly as if the chat did not exist", async () => {
    const paths = [`/api/sessions/${sessionId}/attachments`, `/api/sessions/${sessionId}/attachments/${attachmentId}`];
    for (const path of paths) {
      const res = await get(path, stranger);
      expect(res.status).toBe(404);
      expect(((await res.json()) as { error: { message: string } }).error.message).toBe("That chat does not exist.");
    }
    const del = await fetch(`${harness.baseUrl}/api/sessions/${sessionId}/attachments/${attachmentId}`, {
      method: "DELETE",
      headers: { cookie: stranger },
    });
    expect(del.status).toBe(404);
    const put = await upload("planted.txt", "x", sessionId, stranger);
    expect(put.status).toBe(404);
    expect((await list()).map((a) => a.name)).not.toContain("planted.txt");
  });

  it("does not find one chat's attachment through another chat of the same person", async () => {
    const { sessionId: other } = await openSession(harness, cookie);
    const res = await get(`/api/sessions/${other}/attachments/${attachmentId}`);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { message: string } }).error.message).toBe("That attachment does not exist.");
    const del = await fetch(`${harness.baseUrl}/api/sessions/${other}/attachments/${attachmentId}`, {
      method: "DELETE",
      headers: { cookie },
    });
    expect(del.status).toBe(404);
    expect(await harness.store.attachments.text(other, "notes.txt")).toBeNull();
    expect((await list()).map((a) => a.attachmentId)).toContain(attachmentId);
  });

  it("refuses a cross-site upload and delete", async () => {
    const res = await fetch(`${harness.baseUrl}/api/sessions/${sessionId}/attachments?name=evil.txt`, {
      method: "POST",
      headers: { cookie, origin: "http://evil.example" },
      body: "x",
    });
    expect(res.status).toBe(401);
    const del = await fetch(`${harness.baseUrl}/api/sessions/${sessionId}/attachments/${attachmentId}`, {
      method: "DELETE",
      headers: { cookie, origin: "http://evil.example" },
    });
    expect(del.status).toBe(401);
    expect((await list()).map((a) => a.attachmentId)).toContain(attachmentId);
  });
});

describe("removal and copies", () => {
  it("deletes one attachment with its chunks", async () => {
    const { sessionId: chat } = await openSession(harness, cookie);
    const { body } = await upload("gone.txt", "bye", chat);
    const del = await fetch(`${harness.baseUrl}/api/sessions/${chat}/attachments/${body.attachment!.attachmentId}`, {
      method: "DELETE",
      headers: { cookie },
    });
    expect(await del.json()).toEqual({ attachmentId: body.attachment!.attachmentId });
    expect(await counts(chat)).toEqual({ attachments: 0, chunks: 0 });
  });

  it("copies a chat's attachments into another, names and texts intact", async () => {
    const { sessionId: from } = await openSession(harness, cookie);
    await upload("a.txt", "alpha", from);
    await upload("tides.pdf", tinyPdf(["High tide"]), from);
    const { sessionId: to } = await openSession(harness, cookie);
    await upload("a.txt", "already here", to);
    const copied = await harness.store.attachments.copy(from, { sessionId: to, ownerId: "someone" });
    expect(copied.map((a) => a.name)).toEqual(["a (2).txt", "tides.pdf"]);
    expect(await harness.store.attachments.text(to, "a (2).txt")).toBe("alpha");
    expect(await harness.store.attachments.text(to, "tides.pdf")).toBe("[page 1]\nHigh tide");
    expect(await harness.store.attachments.text(from, "a.txt")).toBe("alpha");
  });

  it("deleting the chat deletes its attachments' metadata and chunks", async () => {
    const { socket, sessionId: chat } = await openSession(harness, cookie);
    await upload("keep.txt", "k", chat);
    await upload("tides.pdf", tinyPdf(["t"]), chat);
    expect((await counts(chat)).chunks).toBe(3);
    const deleted = await request(socket, "session:delete", { sessionId: chat });
    expect(deleted.ok).toBe(true);
    expect(await counts(chat)).toEqual({ attachments: 0, chunks: 0 });
    // The first chat's are untouched.
    expect((await counts(sessionId)).attachments).toBeGreaterThan(0);
  });
});
