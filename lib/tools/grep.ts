import type { Dirent } from "node:fs";
import { lstat } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import type { AttachmentArea } from "./attachment-area";
import { attachmentRequest } from "./attachment-files";
import { createGlobFilter, MAX_GLOB_LENGTH } from "./glob";
import { parseArgs, toolSpec } from "./parse-args";
import { RegexAbortedError, RegexTimeoutError, runRegexJob, type RegexJob, type RegexMatch, type RegexResult } from "./regex-pool";
import { formatBytes, isBinarySample, openRegularFile } from "./text-files";
import { ToolError, type Tool, type ToolContext } from "./types";
import { walk } from "./walk";
import { displayPath, resolveInWorkspace, workspaceRoot } from "./workspace-path";

export const DEFAULT_GREP_MATCHES = 100;
export const MAX_GREP_MATCHES = 500;
/** Larger files are skipped (and said so): they are data dumps, not something to grep. */
export const MAX_GREP_FILE_BYTES = 1024 * 1024;
const MAX_FILES = 5_000;
/** All files searched in one call, together: bounds the call's work. */
const MAX_GREP_TOTAL_BYTES = 64 * 1024 * 1024;
/**
 * Files are read and matched in batches of about this much text, read only once a regex
 * worker is free: the most one call holds in memory, and with the pool's two workers,
 * about the most all grep calls of the server hold together.
 */
const GREP_BATCH_BYTES = 4 * 1024 * 1024;
/** Longest a pattern may run, over all of a call's batches, before its worker is stopped. */
const GREP_TIME_LIMIT_MS = 3_000;
/** Only this much of a line is matched and shown; bounds the regex's work per line. */
const MAX_LINE_CHARS = 2_000;
const SHOWN_LINE_CHARS = 300;

const schema = z.object({
  pattern: z.string().min(1).max(500).describe("JavaScript regular expression to search for."),
  path: z.string().max(4096).default(".").describe("File or folder to search, relative to the workspace root."),
  glob: z.string().min(1).max(MAX_GLOB_LENGTH).optional().describe('Only search files matching this glob, e.g. "*.md" or "src/**/*.ts".'),
  ignoreCase: z.boolean().default(false).describe("Match regardless of letter case."),
  maxMatches: z.number().int().min(1).max(MAX_GREP_MATCHES).default(DEFAULT_GREP_MATCHES),
});
type GrepArgs = z.output<typeof schema>;

export const grepTool: Tool<GrepArgs> = {
  spec: toolSpec(
    "grep",
    "Search workspace text files for a regular expression. Returns matching lines as `path:line: text`. Binary and very large files are skipped. Path attachments searches the files attached to the chat (a PDF as its text).",
    schema,
  ),
  parse: (args) => {
    const parsed = parseArgs("grep", schema, args);
    compilePattern(parsed.pattern, parsed.ignoreCase);
    if (parsed.glob) createGlobFilter(parsed.glob);
    return parsed;
  },
  async run(args, context) {
    const regex = compilePattern(args.pattern, args.ignoreCase);
    const inGlob = args.glob ? createGlobFilter(args.glob) : () => true;
    const attached = attachmentRequest(args.path, context.attachments);
    const { shown, scan, readBatch } = attached
      ? await attachmentScan(attached.area, attached.name, inGlob)
      : await workspaceScan(context.workspaceDir, args.path, inGlob);

    const found: RegexMatch[] = [];
    let capped = false;
    let workerMs = 0;
    while (!capped && scan.next < scan.files.length) {
      const load = async (): Promise<RegexJob | undefined> => {
        const files = await readBatch(scan, context.signal);
        const maxMatches = args.maxMatches - found.length;
        return files.length ? { pattern: regex.source, flags: regex.flags, files, maxMatches, maxLineChars: MAX_LINE_CHARS } : undefined;
      };
      const result = await matchInWorker(load, GREP_TIME_LIMIT_MS - workerMs, regex, context);
      if (!result) break;
      found.push(...result.matches);
      capped = result.capped;
      workerMs += result.elapsedMs;
    }
    return describeResult(args, shown, scan, found, capped);
  },
};

/** The files one grep call searches, and what it skipped and why, filled in as it reads. */
interface Scan {
  files: string[];
  /** Index of the next file to read. */
  next: number;
  totalBytes: number;
  tooLarge: string[];
  binary: number;
  special: string[];
}

type BatchReader = (scan: Scan, signal: AbortSignal) => Promise<{ name: string; text: string }[]>;

async function workspaceScan(
  workspaceDir: string,
  requested: string,
  inGlob: (workspacePath: string, searchPath: string) => boolean,
): Promise<{ shown: string; scan: Scan; readBatch: BatchReader }> {
  const root = await workspaceRoot(workspaceDir);
  const target = await resolveInWorkspace(root, requested);
  const shown = displayPath(root, target);
  return { shown, scan: await listFiles(root, target, shown, inGlob), readBatch: (scan, signal) => readBatch(root, scan, signal) };
}

/**
 * The chat's attachments as grep's files (`attachments/<name>`): their texts as file_read
 * gives them, a PDF's extracted text included; images count as binary files.
 */
async function attachmentScan(
  area: AttachmentArea,
  name: string | null,
  inGlob: (workspacePath: string, searchPath: string) => boolean,
): Promise<{ shown: string; scan: Scan; readBatch: BatchReader }> {
  const scan: Scan = { files: [], next: 0, totalBytes: 0, tooLarge: [], binary: 0, special: [] };
  const all = await area.list();
  const chosen = name === null ? all : all.filter((a) => a.name === name);
  if (name !== null && chosen.length === 0) throw new ToolError(`There is no attachment "${name}" in this chat.`);
  for (const ref of chosen) {
    if (ref.kind === "image") scan.binary += 1;
    else if (name !== null || inGlob(`attachments/${ref.name}`, ref.name)) scan.files.push(ref.name);
  }
  const readBatch: BatchReader = async (current, signal) => {
    const batch: { name: string; text: string }[] = [];
    let bytes = 0;
    while (current.next < current.files.length && bytes < GREP_BATCH_BYTES && !signal.aborted) {
      const attachment = current.files[current.next++]!;
      const shownName = `attachments/${attachment}`;
      const text = (await area.read(attachment)) ?? "";
      const size = Buffer.byteLength(text);
      if (size > MAX_GREP_FILE_BYTES || current.totalBytes + size > MAX_GREP_TOTAL_BYTES) {
        current.tooLarge.push(shownName);
        continue;
      }
      current.totalBytes += size;
      bytes += size;
      batch.push({ name: shownName, text });
    }
    return batch;
  };
  return { shown: name === null ? "attachments" : `attachments/${name}`, scan, readBatch };
}

async function listFiles(
  root: string,
  target: string,
  shown: string,
  inGlob: (workspacePath: string, searchPath: string) => boolean,
): Promise<Scan> {
  const scan: Scan = { files: [], next: 0, totalBytes: 0, tooLarge: [], binary: 0, special: [] };
  const info = await lstat(target);
  if (info.isFile()) {
    scan.files.push(target);
    return scan;
  }
  if (!info.isDirectory())
    throw new ToolError(`"${shown}" is not a regular file (a pipe, socket or device); grep searches text files only.`);
  for await (const entry of walk(target, true)) {
    if (scan.files.length >= MAX_FILES) break;
    const workspacePath = displayPath(root, entry.absolute);
    if (isSpecial(entry.dirent)) scan.special.push(workspacePath);
    if (!entry.dirent.isFile()) continue;
    const searchPath = path.relative(target, entry.absolute).split(path.sep).join("/");
    if (inGlob(workspacePath, searchPath)) scan.files.push(entry.absolute);
  }
  return scan;
}

/** A pipe, socket or device: opening one could block, so it is never opened, only reported. */
function isSpecial(dirent: Dirent): boolean {
  return !dirent.isFile() && !dirent.isDirectory() && !dirent.isSymbolicLink();
}

/**
 * Reads the next files of the scan until about GREP_BATCH_BYTES of text: the most one
 * call holds in memory at a time. Files over the per-file or total cap, binary files and
 * files that are no longer regular are skipped and counted.
 */
async function readBatch(root: string, scan: Scan, signal: AbortSignal): Promise<{ name: string; text: string }[]> {
  const batch: { name: string; text: string }[] = [];
  let bytes = 0;
  while (scan.next < scan.files.length && bytes < GREP_BATCH_BYTES && !signal.aborted) {
    const file = scan.files[scan.next++]!;
    const name = displayPath(root, file);
    const info = await lstat(file);
    if (!info.isFile()) {
      scan.special.push(name);
      continue;
    }
    if (info.size > MAX_GREP_FILE_BYTES || scan.totalBytes + info.size > MAX_GREP_TOTAL_BYTES) {
      scan.tooLarge.push(name);
      continue;
    }
    const content = await readStart(file, name, info.size);
    if (isBinarySample(content)) {
      scan.binary += 1;
      continue;
    }
    scan.totalBytes += content.length;
    bytes += content.length;
    batch.push({ name, text: content.toString("utf8") });
  }
  return batch;
}

/** The file's first `size` bytes: a file that grew since its lstat is not read past it. */
async function readStart(file: string, name: string, size: number): Promise<Buffer> {
  const handle = await openRegularFile(file, name);
  try {
    const buffer = Buffer.alloc(size);
    const { bytesRead } = await handle.read(buffer, 0, size, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

function describeResult(args: GrepArgs, shown: string, scan: Scan, found: RegexMatch[], capped: boolean): string {
  const matchedFiles = new Set(found.map((m) => m.name));
  const matches = found.map(({ name, number, text: raw }) => {
    const text = raw.trim();
    return `${name}:${number}: ${text.length > SHOWN_LINE_CHARS ? `${text.slice(0, SHOWN_LINE_CHARS)}…` : text}`;
  });
  const notes: string[] = [];
  if (capped) notes.push(`[Stopped at ${args.maxMatches} matches; narrow the pattern, path or glob for the rest.]`);
  if (scan.files.length >= MAX_FILES) notes.push(`[Searched only the first ${MAX_FILES} files.]`);
  if (scan.tooLarge.length) {
    notes.push(
      `[Skipped ${scan.tooLarge.length} file(s) over ${formatBytes(MAX_GREP_FILE_BYTES)}: ${listSome(scan.tooLarge)}. Read them with file_read and line ranges.]`,
    );
  }
  if (scan.binary) notes.push(`[Skipped ${scan.binary} binary file(s).]`);
  if (scan.special.length)
    notes.push(`[Skipped ${scan.special.length} special file(s) (pipes, sockets, devices): ${listSome(scan.special)}.]`);
  const where = `${shown === "." ? "the workspace" : shown}${args.glob ? ` (files matching ${args.glob})` : ""}`;
  if (matches.length === 0) {
    return [`No matches for /${args.pattern}/ in ${where}; ${scan.files.length} file(s) searched.`, ...notes].join("\n");
  }
  const summary = `${matches.length}${capped ? "+" : ""} match(es) in ${matchedFiles.size} file(s) for /${args.pattern}/ in ${where}:`;
  return [summary, ...matches, ...notes].join("\n");
}

function listSome(names: string[]): string {
  return `${names.slice(0, 5).join(", ")}${names.length > 5 ? ", …" : ""}`;
}

/**
 * Matches one batch off the main thread (see regex-pool.ts). The person the run works for
 * is the caller in the pool's round-robin, so one person's many runs get one share between
 * them; without one, the run's abort signal stands for the caller.
 * `budgetMs` is what is left of the call's GREP_TIME_LIMIT_MS over all its batches.
 */
async function matchInWorker(
  load: () => Promise<RegexJob | undefined>,
  budgetMs: number,
  regex: RegExp,
  context: ToolContext,
): Promise<RegexResult | undefined> {
  try {
    if (budgetMs <= 0) throw new RegexTimeoutError("timeout");
    return await runRegexJob(context.ownerId ?? context.signal, load, budgetMs, context.signal);
  } catch (error) {
    if (error instanceof ToolError) throw error;
    if (error instanceof RegexTimeoutError) {
      throw new ToolError(
        `The pattern /${regex.source}/ took longer than ${GREP_TIME_LIMIT_MS / 1000} s (it backtracks heavily); simplify it or narrow the path.`,
      );
    }
    if (error instanceof RegexAbortedError) throw new ToolError("The search was cancelled.");
    throw new ToolError(`The search failed: ${(error as Error).message}`);
  }
}

function compilePattern(pattern: string, ignoreCase: boolean): RegExp {
  if (repeatsRepeatingGroup(pattern)) {
    throw new ToolError(
      `The pattern /${pattern}/ repeats a group that itself repeats (like (a+)+), which can run for minutes; simplify it.`,
    );
  }
  try {
    return new RegExp(pattern, ignoreCase ? "i" : "");
  } catch (error) {
    const reason = error instanceof Error ? error.message.replace(/^Invalid regular expression: /, "") : "";
    throw new ToolError(
      `The pattern is not a valid regular expression (${reason}). Escape special characters like ( [ . * with a backslash.`,
    );
  }
}

/**
 * True when a group that holds a repetition is itself repeated: `(a+)+`, `(\w*)*`,
 * `(x+){2,}`, `((a+))+`, `((a)+)*`. Such nesting can backtrack for minutes. One pass that
 * tracks group nesting (a regex cannot count parentheses): when a group closes, whether it
 * repeats inside passes on to the group around it.
 */
export function repeatsRepeatingGroup(pattern: string): boolean {
  const open: boolean[] = [];
  let closedRepeating = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    const afterRepeatingGroup = closedRepeating;
    closedRepeating = false;
    if (c === "\\") i++;
    else if (c === "[") i = classEnd(pattern, i);
    else if (c === "(") open.push(false);
    else if (c === ")") {
      closedRepeating = open.pop() ?? false;
      if (closedRepeating && open.length) open[open.length - 1] = true;
    } else if (c === "+" || c === "*" || c === "{") {
      if (afterRepeatingGroup) return true;
      if (open.length) open[open.length - 1] = true;
    }
  }
  return false;
}

/** Index of the `]` closing the character class opened at `start`: `+*()` inside are literal. */
function classEnd(pattern: string, start: number): number {
  for (let i = start + 1; i < pattern.length; i++) {
    if (pattern[i] === "\\") i++;
    else if (pattern[i] === "]") return i;
  }
  return pattern.length;
}
