import { z } from "zod";
import { editPreview } from "./edit-preview";
import { refuseAttachmentWrite } from "./attachment-files";
import { parseArgs, toolSpec } from "./parse-args";
import { ToolError, type Tool } from "./types";
import { assertUnchanged, MAX_WRITE_BYTES, resolveWriteTarget, writeTarget, type WriteOptions, type WriteTarget } from "./writable-file";

const schema = z
  .object({
    path: z.string().min(1).max(4096).describe("File to edit, relative to the workspace root."),
    old_string: z
      .string()
      .min(1)
      .max(MAX_WRITE_BYTES)
      .describe("The exact text to replace, including whitespace; it must occur exactly once unless replace_all is true."),
    new_string: z.string().max(MAX_WRITE_BYTES).describe("The text to put in its place."),
    replace_all: z.boolean().optional().describe("Replace every occurrence instead of exactly one."),
  })
  .refine((a) => a.old_string !== a.new_string, { message: "new_string is the same as old_string; there is nothing to change" });
type FileEditArgs = z.output<typeof schema>;

/**
 * Exact-string replace in one text file of the workspace; a person approves each call by
 * default. The file the preview was made of is remembered for the call's own arguments
 * (see `Tool.preview`): the edit runs only on that file, with that text.
 */
export function createFileEditTool(options: WriteOptions = {}): Tool<FileEditArgs> {
  const approved = new WeakMap<FileEditArgs, WriteTarget>();
  return {
    spec: toolSpec(
      "file_edit",
      "Replace an exact string in a text file of the workspace (read it first with file_read). old_string must occur exactly once, or set replace_all. A person may have to approve the call.",
      schema,
    ),
    parse: (args) => parseArgs("file_edit", schema, args),
    requiresApproval: true,
    async preview(args, context) {
      refuseAttachmentWrite(args.path, context.attachments);
      const { target, text } = await edited(context.workspaceDir, args, options);
      const diff = editPreview(target.shown, target.current, text);
      approved.set(args, target);
      return diff;
    },
    async run(args, context) {
      refuseAttachmentWrite(args.path, context.attachments);
      const { target, text, count } = await edited(context.workspaceDir, args, options);
      const previewed = approved.get(args);
      // Same file, same text: the edit computed again is the diff the person approved.
      if (previewed) assertUnchanged(previewed, target);
      await writeTarget(target, text);
      return `Edited ${target.shown}: replaced ${count === 1 ? "1 occurrence" : `${count} occurrences`}.`;
    },
  };
}

export const fileEditTool = createFileEditTool();

async function edited(
  workspaceDir: string,
  args: FileEditArgs,
  options: WriteOptions,
): Promise<{ target: WriteTarget; text: string; count: number }> {
  const target = await resolveWriteTarget(workspaceDir, args.path, options);
  if (target.current === null) throw new ToolError(`There is no file "${target.shown}" in the workspace; use file_write to create it.`);
  const count = occurrences(target.current, args.old_string);
  if (count === 0) {
    throw new ToolError(`old_string was not found in ${target.shown}. Read the file again and copy the text exactly, whitespace included.`);
  }
  if (count > 1 && !args.replace_all) {
    throw new ToolError(
      `old_string occurs ${count} times in ${target.shown}. Include more surrounding text so it occurs once, or set replace_all to true.`,
    );
  }
  // A function replacer: `$&` and friends in new_string are text, not patterns.
  const text = args.replace_all
    ? target.current.split(args.old_string).join(args.new_string)
    : target.current.replace(args.old_string, () => args.new_string);
  return { target, text, count };
}

function occurrences(text: string, needle: string): number {
  let count = 0;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) count++;
  return count;
}
