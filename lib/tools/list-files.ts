import { lstat, stat } from "node:fs/promises";
import { z } from "zod";
import { attachmentRequest, attachmentsLine, listAttachments } from "./attachment-files";
import { parseArgs, toolSpec } from "./parse-args";
import { formatBytes } from "./text-files";
import type { Tool } from "./types";
import { walk } from "./walk";
import { displayPath, resolveInWorkspace, workspaceRoot } from "./workspace-path";

/** More entries than this would flood the model's context; it should narrow the path. */
export const MAX_LIST_ENTRIES = 500;

const schema = z.object({
  path: z.string().max(4096).default(".").describe('Folder to list, relative to the workspace root ("." for the root).'),
  recursive: z.boolean().default(false).describe("Also list everything in sub-folders."),
});
type ListFilesArgs = z.output<typeof schema>;

export const listFilesTool: Tool<ListFilesArgs> = {
  spec: toolSpec(
    "list_files",
    `List the files and folders in a workspace folder. Folders end with "/", files show their size. At most ${MAX_LIST_ENTRIES} entries.`,
    schema,
  ),
  parse: (args) => parseArgs("list_files", schema, args),
  async run(args, context) {
    const attached = attachmentRequest(args.path, context.attachments);
    if (attached) return listAttachments(attached.area, attached.name);
    const root = await workspaceRoot(context.workspaceDir);
    const target = await resolveInWorkspace(root, args.path);
    const shown = displayPath(root, target);
    const info = await stat(target);
    if (info.isFile()) return `${shown}  (${formatBytes(info.size)}, a file: read it with file_read)`;
    if (!info.isDirectory()) return `${shown}  (special file: a pipe, socket or device, not a regular file; no tool reads it)`;

    const lines: string[] = [];
    let truncated = false;
    for await (const entry of walk(target, args.recursive)) {
      if (context.signal.aborted) break;
      if (lines.length >= MAX_LIST_ENTRIES) {
        truncated = true;
        break;
      }
      const name = displayPath(root, entry.absolute);
      const indent = "  ".repeat(entry.depth);
      if (entry.dirent.isSymbolicLink()) lines.push(`${indent}${name}  (symbolic link)`);
      else if (entry.dirent.isDirectory()) lines.push(`${indent}${name}/${entry.skipped ? "  (not expanded)" : ""}`);
      else if (entry.dirent.isFile()) lines.push(`${indent}${name}  (${formatBytes((await lstat(entry.absolute)).size)})`);
      else lines.push(`${indent}${name}  (special file)`);
    }
    // The chat's attachments are a folder of the root as the tools see it, though not on disk.
    const attachments = shown === "." ? await attachmentsLine(context.attachments) : undefined;
    if (attachments) lines.push(attachments);
    const header = `Contents of ${shown === "." ? "the workspace root" : `${shown}/`}${args.recursive ? " (recursive)" : ""}:`;
    if (lines.length === 0) return `${header}\n(empty folder)`;
    const footer = truncated ? `\n[Showing the first ${MAX_LIST_ENTRIES} entries; list a sub-folder to see the rest.]` : "";
    return `${header}\n${lines.join("\n")}${footer}`;
  },
};
