import { createTwoFilesPatch } from "diff";
import { formatBytes } from "./text-files";
import { ToolError } from "./types";

/**
 * Largest diff a person is asked to approve (it travels in events and is stored with the
 * call). Nothing is ever cut from a diff: a line left out could be the one that matters,
 * so a larger change is refused to the model instead, which can split it.
 */
export const MAX_PREVIEW_BYTES = 2 * 1024 * 1024;

/**
 * jsdiff runs synchronously on the event loop (which relays every chat's events): past
 * this long it gives up, and the preview is the coarser diff of `wholeRangePatch`, which
 * costs one pass over the text.
 */
const DIFF_TIMEOUT_MS = 250;
const CONTEXT_LINES = 3;

/**
 * The unified diff a person approves: what the file holds now against what the tool would
 * write, every changed line included. Computed when the approval is asked for; a diff
 * over `MAX_PREVIEW_BYTES` is refused (a `ToolError` the model reads: nobody is asked).
 */
export function editPreview(shown: string, before: string | null, after: string, timeoutMs = DIFF_TIMEOUT_MS): string {
  const from = before === null ? "/dev/null" : `a/${shown}`;
  const to = `b/${shown}`;
  const patch = createTwoFilesPatch(from, to, before ?? "", after, undefined, undefined, { context: CONTEXT_LINES, timeout: timeoutMs });
  // Drop the "Index:"/"====" banner: the ---/+++ lines name the file.
  const body = patch === undefined ? wholeRangePatch(from, to, before ?? "", after) : patch.replace(/^(?:Index:[^\n]*\n)?=+\n/, "");
  const bytes = Buffer.byteLength(body);
  if (bytes > MAX_PREVIEW_BYTES) {
    throw new ToolError(
      `The change to ${shown} is too large to review: its diff is ${formatBytes(bytes)}, and a person can be shown at most ${formatBytes(MAX_PREVIEW_BYTES)}. Split it into smaller edits.`,
    );
  }
  return body;
}

/** Lines with their line break ("a\n"), the last one without when the text does not end in one. */
function linesOf(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

/**
 * A unified diff of one hunk: every line from the first that differs to the last that
 * differs is shown removed and added, with context around. Not minimal, but linear in the
 * text and complete: every changed line is in it.
 */
export function wholeRangePatch(from: string, to: string, before: string, after: string): string {
  const old = linesOf(before);
  const neu = linesOf(after);
  let head = 0;
  while (head < old.length && head < neu.length && old[head] === neu[head]) head++;
  let tail = 0;
  while (tail < old.length - head && tail < neu.length - head && old[old.length - 1 - tail] === neu[neu.length - 1 - tail]) tail++;
  const header = `--- ${from}\n+++ ${to}\n`;
  if (head === old.length && head === neu.length) return header;

  const start = Math.max(0, head - CONTEXT_LINES);
  const contextAfter = Math.min(CONTEXT_LINES, tail);
  const out: string[] = [];
  const emit = (sign: string, line: string) => {
    out.push(sign + (line.endsWith("\n") ? line : `${line}\n\\ No newline at end of file\n`));
  };
  for (let i = start; i < head; i++) emit(" ", old[i]!);
  for (let i = head; i < old.length - tail; i++) emit("-", old[i]!);
  for (let i = head; i < neu.length - tail; i++) emit("+", neu[i]!);
  for (let i = old.length - tail; i < old.length - tail + contextAfter; i++) emit(" ", old[i]!);
  const oldCount = old.length - tail + contextAfter - start;
  const newCount = neu.length - tail + contextAfter - start;
  // Unified diff numbers an empty side by the line before it.
  const range = (count: number) => `${count === 0 ? start : start + 1},${count}`;
  return `${header}@@ -${range(oldCount)} +${range(newCount)} @@\n${out.join("")}`;
}
