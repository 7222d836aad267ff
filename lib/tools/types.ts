import type { ToolSpec } from "@/lib/model/types";

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
}

export interface Tool<Args = unknown> {
  spec: ToolSpec;
  parse(args: unknown): Args;
  run(args: Args, context: ToolContext): Promise<string>;
  /** A person must approve each call before it runs (set from a definition or the MCP config). */
  requiresApproval?: boolean;
}

/** A refusal or failure the calling model should read, never a crash. */
export class ToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ToolError";
  }
}
