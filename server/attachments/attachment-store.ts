import { createHash } from "node:crypto";
import { AppError, type AttachmentKind, type AttachmentRef, type AttachmentType } from "@/lib/contracts";
import { chatFull, describeSize, emptyFile, fileTooLarge } from "@/lib/attachments/limits";
import { safeAttachmentName, uniqueAttachmentName } from "@/lib/attachments/name";
import { extensionLie, formatOf, sniff, unsupportedSentence } from "@/lib/attachments/sniff";
import { env } from "@/lib/env";
import type { AttachmentArea } from "@/lib/tools/attachment-area";
import type { Models } from "@/models";
import { newId } from "@/server/data/ids";
import { isDuplicateKey } from "@/server/errors";
import { createKeyedQueue } from "@/server/sessions/keyed-queue";
import { extractPdfText } from "./pdf-text";

/** About GridFS's chunk size: far under the 16 MB document limit, few documents per file. */
export const ATTACHMENT_CHUNK_BYTES = 255 * 1024;
/** Chunks per insert: a write of about 4 MB. */
const CHUNKS_PER_WRITE = 16;

export interface AttachmentLimits {
  /** Largest single file, in bytes (ATTACHMENT_MAX_BYTES). */
  maxBytes: number;
  /** Most bytes of attachments one chat holds (ATTACHMENTS_MAX_CHAT_BYTES). */
  maxChatBytes: number;
}

export function attachmentLimitsFromEnv(): AttachmentLimits {
  return { maxBytes: env().ATTACHMENT_MAX_BYTES, maxChatBytes: env().ATTACHMENTS_MAX_CHAT_BYTES };
}

interface AttachmentRow {
  _id: string;
  sessionId: string;
  ownerId: string;
  name: string;
  type: AttachmentType;
  kind: AttachmentKind;
  size: number;
  sha256: string;
  textSize: number;
  createdAt: Date;
}

type Part = "bytes" | "text";
interface ChunkRow {
  _id: string;
  sessionId: string;
  attachmentId: string;
  part: Part;
  n: number;
  data: Buffer;
}

const REF_FIELDS = { _id: 1, name: 1, size: 1, type: 1, kind: 1 } as const;

/**
 * A chat's attachments in MongoDB: metadata in `Attachment`, bytes (and a PDF's extracted
 * text) in `AttachmentChunk`s. Every method takes the session id, and every lookup is
 * within that session, so an id or a name of another chat finds nothing. It checks no
 * ownership: `AttachmentService` does, before it calls.
 *
 * A write lands whole or not at all: chunks first, the metadata document last (until it
 * exists nothing lists or reads the chunks), and the chunks are removed again when any
 * step fails. A chat's uploads run one at a time in this process, so its total and its
 * names are checked and written without another upload between; across processes the
 * unique index on (session, name) keeps names apart and the total may pass its limit by
 * what uploads at the same instant add.
 */
export class AttachmentStore {
  private readonly queue = createKeyedQueue();

  constructor(
    private readonly models: Pick<Models, "Attachment" | "AttachmentChunk">,
    readonly limits: AttachmentLimits = attachmentLimitsFromEnv(),
  ) {}

  /** Stores one file for the chat: checked, its kind sniffed, its name made safe and unique. */
  async put(sessionId: string, ownerId: string, upload: { name: string; bytes: Buffer }): Promise<AttachmentRef> {
    const { bytes } = upload;
    const wanted = safeAttachmentName(upload.name);
    if (bytes.length > this.limits.maxBytes) throw new AppError("too_large", fileTooLarge(wanted, this.limits.maxBytes, bytes.length));
    if (bytes.length === 0) throw new AppError("bad_request", emptyFile(wanted));
    const format = sniff(bytes);
    if (!format) throw new AppError("unsupported_type", unsupportedSentence(wanted));
    const lie = extensionLie(wanted, format);
    if (lie) throw new AppError("unsupported_type", lie);
    // Before the chat's turn in the queue: reading a PDF needs nothing of the chat.
    const text = format.kind === "pdf" ? Buffer.from((await extractPdfText(bytes)).text, "utf8") : undefined;
    const sha256 = createHash("sha256").update(bytes).digest("hex");
    return this.queue.run(sessionId, async () => {
      const held = await this.models.Attachment.find({ sessionId }, { name: 1, size: 1 }).lean<{ name: string; size: number }[]>();
      const total = held.reduce((sum, a) => sum + a.size, 0);
      if (total + bytes.length > this.limits.maxChatBytes) {
        throw new AppError("too_large", chatFull(wanted, bytes.length, total, this.limits.maxChatBytes));
      }
      const name = uniqueAttachmentName(
        wanted,
        held.map((a) => a.name),
      );
      const attachmentId = newId();
      const textSize = format.kind === "pdf" ? text!.length : format.kind === "text" ? bytes.length : 0;
      const row = {
        _id: attachmentId,
        sessionId,
        ownerId,
        name,
        type: format.type,
        kind: format.kind,
        size: bytes.length,
        sha256,
        textSize,
      };
      await this.writeWhole([{ row, parts: { bytes, ...(text ? { text } : {}) } }]);
      return refOf(row);
    });
  }

  /** The chat's attachments, oldest first. */
  async list(sessionId: string): Promise<AttachmentRef[]> {
    const rows = await this.models.Attachment.find({ sessionId }, REF_FIELDS)
      .sort({ createdAt: 1, _id: 1 })
      .lean<Pick<AttachmentRow, "_id" | "name" | "size" | "type" | "kind">[]>();
    return rows.map(refOf);
  }

  /** One attachment's bytes and what it is; null when the chat has no such attachment. */
  async read(sessionId: string, attachmentId: string): Promise<{ ref: AttachmentRef; sha256: string; bytes: Buffer } | null> {
    const row = await this.models.Attachment.findOne({ _id: attachmentId, sessionId }).lean<AttachmentRow>();
    if (!row) return null;
    return { ref: refOf(row), sha256: row.sha256, bytes: await this.part(row._id, "bytes") };
  }

  /**
   * What an agent reads of the attachment named `name` (exactly): a text file's text, a
   * PDF's extracted text, an image's one-line description; null when there is none.
   */
  async text(sessionId: string, name: string): Promise<string | null> {
    const row = await this.models.Attachment.findOne({ sessionId, name }).lean<AttachmentRow>();
    if (!row) return null;
    switch (row.kind) {
      case "text":
        return (await this.part(row._id, "bytes")).toString("utf8").replace(/^\ufeff/, "");
      case "pdf":
        return (await this.part(row._id, "text")).toString("utf8");
      case "image":
        return `${row.name} is ${formatOf(row.type).label} (${describeSize(row.size)}) attached to this chat; file_read cannot show pictures, so ask the person what it shows if that matters.`;
    }
  }

  /** Removes one attachment; false when the chat has no such attachment. */
  async delete(sessionId: string, attachmentId: string): Promise<boolean> {
    // The metadata first: from then on nothing reads the chunks.
    const removed = await this.models.Attachment.deleteOne({ _id: attachmentId, sessionId });
    await this.models.AttachmentChunk.deleteMany({ attachmentId, sessionId });
    return removed.deletedCount > 0;
  }

  /** Removes everything attached to the chat (the chat is being deleted). */
  async deleteForSession(sessionId: string): Promise<void> {
    await this.models.Attachment.deleteMany({ sessionId });
    await this.models.AttachmentChunk.deleteMany({ sessionId });
  }

  /**
   * Copies attachments (all, or those of `ids`) of one chat into another, for a fork or an
   * import: names kept unless taken there, the target's total checked first, all or none.
   */
  async copy(fromSessionId: string, to: { sessionId: string; ownerId: string }, ids?: readonly string[]): Promise<AttachmentRef[]> {
    return this.queue.run(to.sessionId, async () => {
      const filter = ids ? { sessionId: fromSessionId, _id: { $in: [...ids] } } : { sessionId: fromSessionId };
      const sources = await this.models.Attachment.find(filter).sort({ createdAt: 1, _id: 1 }).lean<AttachmentRow[]>();
      const held = await this.models.Attachment.find({ sessionId: to.sessionId }, { name: 1, size: 1 }).lean<
        { name: string; size: number }[]
      >();
      const total = held.reduce((sum, a) => sum + a.size, 0);
      const adding = sources.reduce((sum, a) => sum + a.size, 0);
      if (total + adding > this.limits.maxChatBytes) {
        throw new AppError("too_large", chatFull(`${sources.length} attachments`, adding, total, this.limits.maxChatBytes));
      }
      const taken = held.map((a) => a.name);
      const copies: { row: Omit<AttachmentRow, "createdAt">; parts: Partial<Record<Part, Buffer>> }[] = [];
      for (const source of sources) {
        const name = uniqueAttachmentName(source.name, taken);
        taken.push(name);
        const parts: Partial<Record<Part, Buffer>> = { bytes: await this.part(source._id, "bytes") };
        if (source.kind === "pdf") parts.text = await this.part(source._id, "text");
        const { _id: _, createdAt: __, ...kept } = source;
        copies.push({ row: { ...kept, _id: newId(), sessionId: to.sessionId, ownerId: to.ownerId, name }, parts });
      }
      await this.writeWhole(copies);
      return copies.map((c) => refOf(c.row));
    });
  }

  /** The chat's attachments as the file tools read them (see lib/tools/attachment-area.ts). */
  area(sessionId: string): AttachmentArea {
    return { list: () => this.list(sessionId), read: (name) => this.text(sessionId, name) };
  }

  /** Writes each attachment's chunks, then all their metadata documents; on any failure, removes the chunks again. */
  private async writeWhole(items: { row: Omit<AttachmentRow, "createdAt">; parts: Partial<Record<Part, Buffer>> }[]): Promise<void> {
    const { Attachment, AttachmentChunk } = this.models;
    const ids = items.map((i) => i.row._id);
    try {
      for (const { row, parts } of items) {
        for (const part of ["bytes", "text"] as const) {
          const data = parts[part];
          if (!data) continue;
          const chunks = chunksOf(row, part, data);
          for (let at = 0; at < chunks.length; at += CHUNKS_PER_WRITE) {
            await AttachmentChunk.insertMany(chunks.slice(at, at + CHUNKS_PER_WRITE), { ordered: true, lean: true });
          }
        }
      }
      await Attachment.insertMany(
        items.map((i) => i.row),
        { ordered: true },
      );
    } catch (error) {
      // A metadata insert that landed in part is taken back too.
      await Attachment.deleteMany({ _id: { $in: ids } }).catch(() => undefined);
      await AttachmentChunk.deleteMany({ attachmentId: { $in: ids } }).catch(() => undefined);
      if (isDuplicateKey(error))
        throw new AppError("conflict", "Another file of that name was attached at the same moment; attach it again.");
      throw error;
    }
  }

  private async part(attachmentId: string, part: Part): Promise<Buffer> {
    const chunks = await this.models.AttachmentChunk.find({ attachmentId, part }, { data: 1, n: 1 })
      .sort({ n: 1 })
      .lean<{ data: unknown }[]>();
    return Buffer.concat(chunks.map((c) => bytesOf(c.data)));
  }
}

function chunksOf(row: { _id: string; sessionId: string }, part: Part, data: Buffer): ChunkRow[] {
  const chunks: ChunkRow[] = [];
  for (let n = 0; n * ATTACHMENT_CHUNK_BYTES < data.length; n++) {
    const slice = data.subarray(n * ATTACHMENT_CHUNK_BYTES, (n + 1) * ATTACHMENT_CHUNK_BYTES);
    chunks.push({ _id: `${row._id}:${part}:${n}`, sessionId: row.sessionId, attachmentId: row._id, part, n, data: slice });
  }
  return chunks;
}

/** A chunk's bytes as the driver hands them back: a BSON Binary (its `buffer`, `position` bytes long) or a Buffer. */
function bytesOf(data: unknown): Buffer {
  if (Buffer.isBuffer(data)) return data;
  const binary = data as { buffer?: unknown; position?: unknown };
  if (binary.buffer instanceof Uint8Array) {
    const length = typeof binary.position === "number" ? binary.position : binary.buffer.byteLength;
    return Buffer.from(binary.buffer.buffer, binary.buffer.byteOffset, length);
  }
  throw new Error("an attachment chunk holds no bytes");
}

function refOf(row: Pick<AttachmentRow, "_id" | "name" | "size" | "type" | "kind">): AttachmentRef {
  return { attachmentId: row._id, name: row.name, size: row.size, type: row.type, kind: row.kind };
}
