import { createTwoFilesPatch } from "diff";

/** Longest diff kept on an approval (it travels in events and is stored with the call). */
export const MAX_PREVIEW_CHARS = 20_000;

/**
 * jsdiff runs synchronously on the event loop (which relays every chat's events): a diff
 * that changes thousands of lines gives up after this long rather than stall the server.
 */
const DIFF_TIMEOUT_MS = 250;

/**
 * The unified diff a person approves: what the file holds now against what the tool would
 * write. Computed when the approval is asked for; a diff that takes too long (huge files,
 * pathological changes) or is too long is replaced or cut, and says so.
 */
export function editPreview(shown: string, before: string | null, after: string, timeoutMs = DIFF_TIMEOUT_MS): string {
  const patch = createTwoFilesPatch(before === null ? "/dev/null" : `a/${shown}`, `b/${shown}`, before ?? "", after, undefined, undefined, {
    context: 3,
    timeout: timeoutMs,
  });
  if (patch === undefined) return `The diff of ${shown} took too long to compute; the new text is ${after.length} characters.`;
  // Drop the "Index:"/"====" banner: the ---/+++ lines name the file.
  const body = patch.replace(/^(?:Index:[^\n]*\n)?=+\n/, "");
  if (body.length <= MAX_PREVIEW_CHARS) return body;
  return `${body.slice(0, MAX_PREVIEW_CHARS)}\n… [diff cut: ${body.length - MAX_PREVIEW_CHARS} more characters]\n`;
}
