import type { InputAnswer } from "@/lib/contracts";
import type { ToolSpec } from "@/lib/model/types";
import type { AttachmentArea } from "./attachment-area";

/**
 * A tool an agent may call. Arguments arrive as untrusted model output: `parse` validates
 * them (zod) and throws `ToolError` with a sentence the model can act on; `run` does the
 * work and returns the text the model will read.
 */
export interface ToolContext {
  /** Absolute, real path of the folder file tools are confined to. */
  workspaceDir: string;
  signal: AbortSignal;
  /**
   * The person the work is for. Pools shared by everyone (the regex workers) take turns
   * between people, so one person's many runs count once; absent, each run is its own owner.
   */
  ownerId?: string;
  /**
   * The chat's attachments, read-only, as the folder `attachments/` (see
   * attachment-area.ts); absent: that path is an ordinary workspace path.
   */
  attachments?: AttachmentArea;
  /**
   * Asks the person a question while the call runs, and waits for the answer (see
   * lib/contracts/input.ts): `form` is a flat JSON-schema object, checked here. Throws a
   * ToolError when the form cannot be shown or no one can be asked (a run without a
   * person); resolves with `cancel` when the run stops, the call ends, `options.signal`
   * aborts (the asker withdrew the question) or no one answers in time.
   * Absent where calls are not made by an agent of a turn (previews, tests).
   */
  askInput?(message: string, form: unknown, options?: { signal?: AbortSignal }): Promise<InputAnswer>;
}

export interface Tool<Args = unknown> {
  spec: ToolSpec;
  parse(args: unknown): Args;
  run(args: Args, context: ToolContext): Promise<string>;
  /**
   * A person must approve each call before it runs (file edits by default; MCP tools
   * from their config). Subagent definitions can require it for more tools.
   */
  requiresApproval?: boolean;
  /**
   * What the person approves, beyond the parameters: for file edits, the unified diff.
   * Computed when the approval is asked for; a `ToolError` here goes to the model and
   * nobody is asked (an edit that cannot apply needs no decision). `run` then gets the
   * very `args` object `preview` got, so a tool can key what the person saw on it (the
   * edit tools keep the file's identity there and refuse to write any other).
   */
  preview?(args: Args, context: ToolContext): Promise<string>;
}

/** A refusal or failure the calling model should read, never a crash. */
export class ToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ToolError";
  }
}
