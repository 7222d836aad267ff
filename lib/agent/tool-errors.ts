/**
 * Structured error results: a refusal or failure is returned to the calling model as a
 * result it can read and act on — a stable code plus a sentence — never thrown up the stack.
 */
export type ToolErrorCode =
  | "unknown_tool"
  | "invalid_arguments"
  | "tool_failed"
  | "unknown_subagent"
  | "depth_limit"
  | "children_limit"
  | "cancelled"
  | "approval_denied"
  | "too_many_calls";

export function toolErrorText(code: ToolErrorCode, message: string): string {
  return `Error [${code}]: ${message}`;
}

/** The status an error result is recorded with: a call its run's stop cut short says so, the rest failed. */
export function toolErrorStatus(code: ToolErrorCode): "error" | "cancelled" {
  return code === "cancelled" ? "cancelled" : "error";
}
