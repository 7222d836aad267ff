import { z } from "zod";
import { editPreview } from "./edit-preview";
import { refuseAttachmentWrite } from "./attachment-files";
import { parseArgs, toolSpec } from "./parse-args";
import { formatBytes } from "./text-files";
import type { Tool } from "./types";
import { assertUnchanged, MAX_WRITE_BYTES, resolveWriteTarget, writeTarget, type WriteOptions, type WriteTarget } from "./writable-file";

const schema = z.object({
  path: z.string().min(1).max(4096).describe("File to create or overwrite, relative to the workspace root. Missing folders are created."),
  content: z.string().max(MAX_WRITE_BYTES).describe("The whole new text of the file."),
});
type FileWriteArgs = z.output<typeof schema>;

/**
 * Creates or overwrites one text file in the workspace; a person approves each call by
 * default. The file the preview was made of is remembered for the call's own arguments
 * (see `Tool.preview`), and the write refused if the path no longer leads to it.
 */
export function createFileWriteTool(options: WriteOptions = {}): Tool<FileWriteArgs> {
  const approved = new WeakMap<FileWriteArgs, WriteTarget>();
  return {
    spec: toolSpec(
      "file_write",
      `Create a text file in the workspace, or replace the whole text of one. At most ${formatBytes(MAX_WRITE_BYTES)}. To change part of a file, use file_edit. A person may have to approve the call.`,
      schema,
    ),
    parse: (args) => parseArgs("file_write", schema, args),
    requiresApproval: true,
    async preview(args, context) {
      refuseAttachmentWrite(args.path, context.attachments);
      const target = await resolveWriteTarget(context.workspaceDir, args.path, options);
      const diff = editPreview(target.shown, target.current, args.content);
      approved.set(args, target);
      return diff;
    },
    async run(args, context) {
      refuseAttachmentWrite(args.path, context.attachments);
      const target = await resolveWriteTarget(context.workspaceDir, args.path, options);
      const previewed = approved.get(args);
      if (previewed) assertUnchanged(previewed, target);
      await writeTarget(target, args.content);
      const size = formatBytes(Buffer.byteLength(args.content));
      return target.current === null ? `Created ${target.shown} (${size}).` : `Replaced the text of ${target.shown} (${size}).`;
    },
  };
}

export const fileWriteTool = createFileWriteTool();
