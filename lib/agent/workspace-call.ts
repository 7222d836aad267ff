import { ZodError } from "zod";
import { wellFormed } from "@/lib/contracts";
import type { ModelToolCall } from "@/lib/model/types";
import { ToolError, type Tool, type ToolContext } from "@/lib/tools/types";
import type { ToolOutcome } from "./agent-loop";
import { describeError } from "./model-step";
import { toolErrorStatus, toolErrorText, type ToolErrorCode } from "./tool-errors";

/**
 * Runs one workspace tool call. Arguments are untrusted model output: bad JSON, a failed
 * `parse` or a refusal come back as structured error results. A tool that ignores the
 * abort signal cannot hold a cancelled or killed run open: the call is abandoned.
 */
/** Asked once the arguments are valid, before the tool runs: an outcome means "do not run" (see approval). */
export type BeforeRun = (args: unknown) => Promise<ToolOutcome | undefined>;

export async function runWorkspaceCall(tool: Tool, call: ModelToolCall, context: ToolContext, beforeRun?: BeforeRun): Promise<ToolOutcome> {
  const { signal } = context;
  let raw: unknown;
  try {
    raw = call.arguments.trim() === "" ? {} : JSON.parse(call.arguments);
  } catch {
    return error("invalid_arguments", `Arguments for "${call.name}" are not valid JSON: ${clip(call.arguments)}`);
  }
  let args: unknown;
  try {
    args = tool.parse(raw);
  } catch (e) {
    return error("invalid_arguments", `Invalid arguments for "${call.name}": ${describeParseError(e)}`);
  }
  const refused = beforeRun && (await beforeRun(args));
  if (refused) return refused;
  if (signal.aborted) return error("cancelled", `"${call.name}" was not run: the run was stopped.`);
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<ToolOutcome>((resolve) => {
    onAbort = () => resolve(error("cancelled", `"${call.name}" was stopped before it finished.`));
    signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    const run = tool.run(args, context).then(
      // Tool output enters here: normalised once, like model output.
      (content): ToolOutcome => ({ content: wellFormed(content), status: "success" }),
      (e: unknown): ToolOutcome =>
        e instanceof ToolError ? error("tool_failed", e.message) : error("tool_failed", `"${call.name}" failed: ${describeError(e)}`),
    );
    return await Promise.race([run, aborted]);
  } finally {
    if (onAbort) signal.removeEventListener("abort", onAbort);
  }
}

function error(code: ToolErrorCode, message: string): ToolOutcome {
  return { content: toolErrorText(code, message), status: toolErrorStatus(code) };
}

function describeParseError(e: unknown): string {
  if (e instanceof ZodError) return e.issues.map((i) => `${i.path.join(".") || "(arguments)"}: ${i.message}`).join("; ");
  return describeError(e);
}

function clip(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
