import path from "node:path";
import type { AttachmentRef } from "@/lib/contracts";
import { ATTACHMENTS_FOLDER, type AttachmentArea } from "./attachment-area";
import { formatBytes } from "./text-files";
import { ToolError } from "./types";

/**
 * Whether a tool's path names the attachments (`{ name: null }`: the folder itself, for
 * listing) or one of them, or is a workspace path (null). Read lexically, like the
 * workspace's own checks: `attachments/../x` is the workspace's `x`, and a path below a
 * name (`attachments/a/b`) names no attachment, since names hold no `/`.
 */
export function attachmentTarget(requested: string): { name: string | null } | null {
  const asked = requested.trim();
  if (asked === "" || path.posix.isAbsolute(asked)) return null;
  const segments = path.posix
    .normalize(asked)
    .split("/")
    .filter((s) => s !== "");
  if (segments[0] !== ATTACHMENTS_FOLDER) return null;
  return { name: segments.length === 1 ? null : segments.slice(1).join("/") };
}

/** The chat's attachment area when `requested` addresses it; undefined for a workspace path or a turn without an area. */
export function attachmentRequest(
  requested: string,
  area: AttachmentArea | undefined,
): { area: AttachmentArea; name: string | null } | undefined {
  const target = area && attachmentTarget(requested);
  return target ? { area, name: target.name } : undefined;
}

/** The refusal of any change under `attachments/`. */
export function refuseAttachmentWrite(requested: string, area: AttachmentArea | undefined): void {
  if (attachmentRequest(requested, area)) {
    throw new ToolError(
      `attachments are read-only: "${requested.trim()}" is under the chat's attachments/ folder, the files a person attached, which no tool can change, create or delete. Write to another path of the workspace instead.`,
    );
  }
}

/** The text of one attachment, or a refusal naming what there is. */
export async function readAttachment(area: AttachmentArea, name: string | null): Promise<{ shown: string; text: string }> {
  if (name === null) throw new ToolError(`"${ATTACHMENTS_FOLDER}/" is a folder; use list_files to see what it holds.`);
  const text = await area.read(name);
  if (text === null) {
    const names = (await area.list()).map((a) => a.name);
    throw new ToolError(
      `There is no attachment "${name}" in this chat. ${names.length ? `Its attachments: ${quoteSome(names)}.` : "This chat has no attachments."}`,
    );
  }
  return { shown: `${ATTACHMENTS_FOLDER}/${name}`, text };
}

/** The listing of the area (list_files on `attachments`). */
export async function listAttachments(area: AttachmentArea, name: string | null): Promise<string> {
  const all = await area.list();
  if (name !== null) {
    const one = all.find((a) => a.name === name);
    if (!one) throw new ToolError(`There is no attachment "${name}" in this chat.`);
    return `${ATTACHMENTS_FOLDER}/${one.name}  (${describe(one)}, an attachment: read it with file_read)`;
  }
  const header = `Contents of ${ATTACHMENTS_FOLDER}/ (the files attached to this chat, read-only; read one with file_read):`;
  if (all.length === 0) return `${header}\n(no files attached to this chat)`;
  return [header, ...all.map((a) => `${ATTACHMENTS_FOLDER}/${a.name}  (${describe(a)})`)].join("\n");
}

/** The line the workspace root's listing adds for the area, when the chat has attachments. */
export async function attachmentsLine(area: AttachmentArea | undefined): Promise<string | undefined> {
  const count = area ? (await area.list()).length : 0;
  return count ? `${ATTACHMENTS_FOLDER}/  (${count} file${count === 1 ? "" : "s"} attached to this chat, read-only)` : undefined;
}

function describe(ref: AttachmentRef): string {
  const kind = ref.kind === "pdf" ? "PDF, read as its text" : ref.kind === "image" ? `image, ${ref.type}` : "text";
  return `${formatBytes(ref.size)}, ${kind}`;
}

function quoteSome(names: string[]): string {
  const shown = names.slice(0, 20).map((n) => `"${n}"`);
  return `${shown.join(", ")}${names.length > 20 ? `, and ${names.length - 20} more` : ""}`;
}
