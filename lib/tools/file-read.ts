import { stat } from "node:fs/promises";
import { z } from "zod";
import { attachmentRequest, readAttachment } from "./attachment-files";
import { ToolError, type Tool } from "./types";
import { parseArgs, toolSpec } from "./parse-args";
import { formatBytes, looksBinary, readLines, type Line } from "./text-files";
import { displayPath, resolveInWorkspace, workspaceRoot } from "./workspace-path";

/** Most text one read returns; the model can page on with startLine. */
export const MAX_READ_BYTES = 256 * 1024;
const MAX_LINE_CHARS = 4_000;
const line = z.number().int().min(1).max(100_000_000);

const schema = z
  .object({
    path: z.string().min(1).max(4096).describe("File to read, relative to the workspace root."),
    startLine: line.optional().describe("First line to return (1-based)."),
    endLine: line.optional().describe("Last line to return (inclusive)."),
  })
  .refine((a) => a.startLine === undefined || a.endLine === undefined || a.endLine >= a.startLine, {
    message: "endLine must not be before startLine",
  });
type FileReadArgs = z.output<typeof schema>;

export const fileReadTool: Tool<FileReadArgs> = {
  spec: toolSpec(
    "file_read",
    `Read a text file from the workspace, with line numbers. Optionally only lines startLine..endLine. Returns at most ${MAX_READ_BYTES / 1024} KB per call. Files the person attached to the chat are under attachments/ (a PDF reads as its text).`,
    schema,
  ),
  parse: (args) => parseArgs("file_read", schema, args),
  async run(args, context) {
    const attached = attachmentRequest(args.path, context.attachments);
    if (attached) {
      const { shown, text } = await readAttachment(attached.area, attached.name);
      return numberedLines(linesOf(text), shown, Buffer.byteLength(text), args, context.signal);
    }
    const root = await workspaceRoot(context.workspaceDir);
    const file = await resolveInWorkspace(root, args.path);
    const shown = displayPath(root, file);
    const info = await stat(file);
    if (info.isDirectory()) throw new ToolError(`"${shown}" is a folder; use list_files to see what it holds.`);
    if (!info.isFile()) throw new ToolError(`"${shown}" is not a regular file and cannot be read.`);
    if (await looksBinary(file, shown)) {
      throw new ToolError(`"${shown}" is a binary file (${formatBytes(info.size)}); file_read only returns text.`);
    }
    return numberedLines(readLines(file, shown, MAX_LINE_CHARS), shown, info.size, args, context.signal);
  },
};

/** The lines `args` asks for, numbered, up to MAX_READ_BYTES, with notes on what was left out. */
async function numberedLines(
  lines: AsyncIterable<Line> | Iterable<Line>,
  shown: string,
  size: number,
  args: FileReadArgs,
  signal: AbortSignal,
): Promise<string> {
  const first = args.startLine ?? 1;
  const last = args.endLine ?? Number.MAX_SAFE_INTEGER;
  const out: string[] = [];
  let bytes = 0;
  let lastShown = 0;
  let total = 0;
  let stoppedAt: number | undefined;
  let cutLines = 0;
  let reachedEnd = true;
  for await (const { number, text, cut } of lines) {
    total = number;
    if (number < first) continue;
    if (number > last || signal.aborted) {
      reachedEnd = false;
      break;
    }
    const numbered = `${number}\t${text}${cut ? " … [line cut]" : ""}`;
    bytes += Buffer.byteLength(numbered) + 1;
    if (bytes > MAX_READ_BYTES) {
      stoppedAt = number;
      reachedEnd = false;
      break;
    }
    if (cut) cutLines += 1;
    out.push(numbered);
    lastShown = number;
  }

  if (out.length === 0) {
    if (size === 0) return `${shown} is empty.`;
    throw new ToolError(`"${shown}" has only ${total} lines; startLine ${first} is past the end.`);
  }
  const notes: string[] = [];
  if (stoppedAt !== undefined) {
    notes.push(
      `[Truncated: showed ${formatBytes(MAX_READ_BYTES)} of a ${formatBytes(size)} file. ` + `Continue with startLine=${stoppedAt}.]`,
    );
  }
  if (cutLines) notes.push(`[${cutLines} line(s) longer than ${MAX_LINE_CHARS} characters were cut.]`);
  const header = `${shown} (lines ${first}-${lastShown}${reachedEnd ? ", end of file" : ""}):`;
  return [header, ...out, ...notes].join("\n");
}

/** A text's lines as `readLines` gives a file's: `\r\n` read as `\n`, no line after a final newline, long lines cut. */
function* linesOf(text: string): Generator<Line> {
  if (text === "") return;
  const all = text.split("\n");
  if (all.length > 1 && all[all.length - 1] === "") all.pop();
  for (const [i, raw] of all.entries()) {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    const cut = line.length > MAX_LINE_CHARS;
    yield { number: i + 1, text: cut ? line.slice(0, MAX_LINE_CHARS) : line, cut };
  }
}
