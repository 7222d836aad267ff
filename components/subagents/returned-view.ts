import type { SubagentProcess, ToolCall } from "@/lib/contracts";
import { readNarrative } from "@/lib/agent/narrative";

/**
 * What the panel's "Returned to parent" shows: the result the parent's model read, its
 * cast header and footer as small metadata, and its body only when it says something
 * the panel does not already show above (a condensed answer, a different text); else a
 * short note. Text that is not a cast result (older records) is shown whole.
 */
export type ReturnedView =
  | { kind: "same"; meta: string[]; note: string }
  | { kind: "differs"; meta: string[]; body: string; truncated: boolean }
  | { kind: "raw"; body: string; truncated: boolean };

const NO_ANSWER = "(no answer)";

export function returnedView(
  call: Pick<ToolCall, "response" | "responseSize">,
  process: Pick<SubagentProcess, "status" | "response" | "error">,
): ReturnedView {
  const truncated = call.responseSize > call.response.length;
  const read = readNarrative(call.response);
  if (!read) return { kind: "raw", body: call.response, truncated };
  const meta = [read.status, read.level === 1 ? "passed through whole" : `condensed: ${read.condensation}`, ...read.footer];
  const body = read.body.trim();
  if (process.status === "success") {
    const answer = process.response.trim();
    const same = truncated ? answer.startsWith(body) : body === answer || (answer === "" && body === NO_ANSWER);
    if (same) return { kind: "same", meta, note: "Returned as shown above." };
  } else if (body === NO_ANSWER && (read.error ?? "").trim() === (process.error ?? "").trim()) {
    return { kind: "same", meta, note: "Returned the outcome shown above." };
  }
  return { kind: "differs", meta, body: read.body, truncated };
}
