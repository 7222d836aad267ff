import type { AttachmentRef } from "@/lib/contracts";

/** The folder name under which the file tools show a chat's attachments. */
export const ATTACHMENTS_FOLDER = "attachments";

/**
 * One chat's attachments as the file tools see them: read-only, and nothing but that
 * chat's. The server gives each turn the area of its own chat (see
 * `AttachmentStore.area`); the tools never see a session id, so no path can name another
 * chat's files, and no name reaches the disk.
 */
export interface AttachmentArea {
  list(): Promise<AttachmentRef[]>;
  /**
   * What an agent reads of the attachment named `name` exactly: a text file's text, a
   * PDF's extracted text, an image's one-line description. Null: this chat has none of
   * that name.
   */
  read(name: string): Promise<string | null>;
}
