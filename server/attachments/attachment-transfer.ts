import { AppError, type AttachmentRef } from "@/lib/contracts";
import type { ExportedAttachment } from "@/lib/export/session-attachments";
import type { AttachmentStore } from "./attachment-store";

/**
 * A chat's attachments moving between chats: written into a session file, stored from
 * one, and copied for a fork. Each gives the map from the old ids to the new refs, which
 * the turns' `attachments` refs are rewritten with.
 */

/** The chat's attachments for its session file, read one at a time as the file is written. */
export async function* exportedAttachments(
  store: Pick<AttachmentStore, "list" | "read">,
  sessionId: string,
): AsyncGenerator<ExportedAttachment> {
  for (const ref of await store.list(sessionId)) {
    const found = await store.read(sessionId, ref.attachmentId);
    // Deleted while the file was written: it is simply not in it.
    if (!found) continue;
    yield { ...found.ref, base64: found.bytes.toString("base64") };
  }
}

/**
 * Stores a session file's attachments in the chat it is imported into, each through `put`
 * as an upload is (its kind sniffed from the bytes, its name made safe, the limits
 * checked), so a file cannot bring in what an upload could not. The stored kind must be
 * the one the file claims, or the turns that name it would misdescribe it.
 */
export async function importAttachments(
  store: Pick<AttachmentStore, "put">,
  to: { sessionId: string; ownerId: string },
  attachments: readonly ExportedAttachment[],
): Promise<Map<string, AttachmentRef>> {
  const stored = new Map<string, AttachmentRef>();
  for (const a of attachments) {
    const ref = await store
      .put(to.sessionId, to.ownerId, { name: a.name, bytes: Buffer.from(a.base64, "base64") })
      .catch((error: unknown) => {
        const why = error instanceof AppError ? error.message : "it could not be stored";
        throw new AppError("bad_request", `The attachment "${a.name}" in the file was refused: ${why}`);
      });
    if (ref.kind !== a.kind || ref.type !== a.type)
      throw new AppError(
        "bad_request",
        `The attachment "${a.name}" in the file is ${ref.type}, not the ${a.type} it claims; nothing was imported.`,
      );
    stored.set(a.attachmentId, ref);
  }
  return stored;
}

/**
 * For a fork: copies the chat's attachments into the new chat in the store itself, with
 * no round trip through base64 or a second check of what was checked at upload (all of
 * them, since every agent of a turn reads the whole `attachments/` folder, and the copied
 * turns' tool calls may have read any). Answers the map from each old id to its copy's
 * ref. All or none, the target's total checked (see `copy`).
 */
export async function copyChatAttachments(
  store: Pick<AttachmentStore, "list" | "copy">,
  fromSessionId: string,
  to: { sessionId: string; ownerId: string },
): Promise<Map<string, AttachmentRef>> {
  const sources = await store.list(fromSessionId);
  if (!sources.length) return new Map();
  // `copy` answers in the order `list` gives (oldest first), so the two pair up.
  const copies = await store.copy(
    fromSessionId,
    to,
    sources.map((s) => s.attachmentId),
  );
  if (copies.length !== sources.length)
    throw new AppError("conflict", "An attachment of the chat was removed while it was being copied; try again.");
  return new Map(sources.map((source, i) => [source.attachmentId, copies[i]!]));
}
