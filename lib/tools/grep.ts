import { lstat, readFile } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { createGlobFilter, MAX_GLOB_LENGTH } from "./glob";
import { parseArgs, toolSpec } from "./parse-args";
import { RegexAbortedError, RegexTimeoutError, runRegexJob, type RegexJob, type RegexMatch } from "./regex-pool";
import { formatBytes, looksBinary } from "./text-files";
import { ToolError, type Tool } from "./types";
import { walk } from "./walk";
import { displayPath, resolveInWorkspace, workspaceRoot } from "./workspace-path";

export const DEFAULT_GREP_MATCHES = 100;
export const MAX_GREP_MATCHES = 500;
/** Larger files are skipped (and said so): they are data dumps, not something to grep. */
export const MAX_GREP_FILE_BYTES = 1024 * 1024;
const MAX_FILES = 5_000;
/** All files searched in one call, together: bounds memory and the worker's input. */
const MAX_GREP_TOTAL_BYTES = 64 * 1024 * 1024;
/** Longest a pattern may run before its worker is stopped. */
const GREP_TIME_LIMIT_MS = 3_000;
/** Only this much of a line is matched and shown; bounds the regex's work per line. */
const MAX_LINE_CHARS = 2_000;
const SHOWN_LINE_CHARS = 300;
/** `(a+)+`, `(\w*)*`, `(x+){2,}`: nested repetition that can backtrack for minutes. */
const NESTED_QUANTIFIER = /\((?:[^()\\]|\\.)*[+*}](?:[^()\\]|\\.)*\)[+*{]/;

const schema = z.object({
  pattern: z.string().min(1).max(500).describe("JavaScript regular expression to search for."),
  path: z.string().max(4096).default(".").describe("File or folder to search, relative to the workspace root."),
  glob: z
    .string()
    .min(1)
    .max(MAX_GLOB_LENGTH)
    .optional()
    .describe('Only search files matching this glob, e.g. "*.md" or "src/**/*.ts".'),
  ignoreCase: z.boolean().default(false).describe("Match regardless of letter case."),
  maxMatches: z.number().int().min(1).max(MAX_GREP_MATCHES).default(DEFAULT_GREP_MATCHES),
});
type GrepArgs = z.output<typeof schema>;

export const grepTool: Tool<GrepArgs> = {
  spec: toolSpec(
    "grep",
    "Search workspace text files for a regular expression. Returns matching lines as `path:line: text`. Binary and very large files are skipped.",
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
    const root = await workspaceRoot(context.workspaceDir);
    const target = await resolveInWorkspace(root, args.path);
    const shown = displayPath(root, target);

    const files: string[] = [];
    if ((await lstat(target)).isDirectory()) {
      for await (const entry of walk(target, true)) {
        if (files.length >= MAX_FILES) break;
        if (!entry.dirent.isFile()) continue;
        const workspacePath = displayPath(root, entry.absolute);
        const searchPath = path.relative(target, entry.absolute).split(path.sep).join("/");
        if (inGlob(workspacePath, searchPath)) files.push(entry.absolute);
      }
    } else {
      files.push(target);
    }

    const texts: { name: string; text: string }[] = [];
    const tooLarge: string[] = [];
    let binary = 0;
    let totalBytes = 0;
    for (const file of files) {
      if (context.signal.aborted) break;
      const name = displayPath(root, file);
      const size = (await lstat(file)).size;
      if (size > MAX_GREP_FILE_BYTES || totalBytes + size > MAX_GREP_TOTAL_BYTES) {
        tooLarge.push(name);
        continue;
      }
      if (await looksBinary(file)) {
        binary += 1;
        continue;
      }
      totalBytes += size;
      texts.push({ name, text: await readFile(file, "utf8") });
    }

    const found = await matchInWorker({ pattern: regex.source, flags: regex.flags, files: texts, maxMatches: args.maxMatches, maxLineChars: MAX_LINE_CHARS }, context.signal);
    const capped = found.capped;
    const matchedFiles = new Set(found.matches.map((m) => m.name));
    const matches = found.matches.map(({ name, number, text: raw }) => {
      const text = raw.trim();
      return `${name}:${number}: ${text.length > SHOWN_LINE_CHARS ? `${text.slice(0, SHOWN_LINE_CHARS)}…` : text}`;
    });

    const notes: string[] = [];
    if (capped) notes.push(`[Stopped at ${args.maxMatches} matches; narrow the pattern, path or glob for the rest.]`);
    if (files.length >= MAX_FILES) notes.push(`[Searched only the first ${MAX_FILES} files.]`);
    if (tooLarge.length) {
      notes.push(`[Skipped ${tooLarge.length} file(s) over ${formatBytes(MAX_GREP_FILE_BYTES)}: ${tooLarge.slice(0, 5).join(", ")}${tooLarge.length > 5 ? ", …" : ""}. Read them with file_read and line ranges.]`);
    }
    if (binary) notes.push(`[Skipped ${binary} binary file(s).]`);
    const where = `${shown === "." ? "the workspace" : shown}${args.glob ? ` (files matching ${args.glob})` : ""}`;
    if (matches.length === 0) {
      return [`No matches for /${args.pattern}/ in ${where}; ${files.length} file(s) searched.`, ...notes].join("\n");
    }
    const summary = `${matches.length}${capped ? "+" : ""} match(es) in ${matchedFiles.size} file(s) for /${args.pattern}/ in ${where}:`;
    return [summary, ...matches, ...notes].join("\n");
  },
};

/** Matches off the main thread, with a deadline (see regex-pool.ts). */
async function matchInWorker(job: RegexJob, signal: AbortSignal): Promise<{ matches: RegexMatch[]; capped: boolean }> {
  try {
    return await runRegexJob(job, GREP_TIME_LIMIT_MS, signal);
  } catch (error) {
    if (error instanceof RegexTimeoutError) {
      throw new ToolError(`The pattern /${job.pattern}/ took longer than ${GREP_TIME_LIMIT_MS / 1000} s (it backtracks heavily); simplify it or narrow the path.`);
    }
    if (error instanceof RegexAbortedError) throw new ToolError("The search was cancelled.");
    throw new ToolError(`The search failed: ${(error as Error).message}`);
  }
}

function compilePattern(pattern: string, ignoreCase: boolean): RegExp {
  if (NESTED_QUANTIFIER.test(pattern)) {
    throw new ToolError(
      `The pattern /${pattern}/ repeats a group that itself repeats (like (a+)+), which can run for minutes; simplify it.`,
    );
  }
  try {
    return new RegExp(pattern, ignoreCase ? "i" : "");
  } catch (error) {
    const reason = error instanceof Error ? error.message.replace(/^Invalid regular expression: /, "") : "";
    throw new ToolError(`The pattern is not a valid regular expression (${reason}). Escape special characters like ( [ . * with a backslash.`);
  }
}
