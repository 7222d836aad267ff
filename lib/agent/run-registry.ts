import type { EndReason, ErrorCode } from "@/lib/contracts";

/**
 * The live subagent runs of one turn, addressable by run id for steer and kill. A run
 * keeps its final status after it ends so that a late steer gets a precise
 * "is not running" refusal rather than "not found".
 */

export type RunState = "running" | EndReason;
/** `code`: how a refusal reads to the person who sent the command (absent: nothing by that id, `not_found`). */
export type ControlResult = { ok: true } | { ok: false; message: string; code?: ErrorCode };

export interface RunEntry {
  runId: string;
  status: RunState;
  /** Steering messages delivered at the child's next step boundary. */
  inbox: string[];
  abort(reason: EndReason): void;
  /** Takes a steering message itself (a remote agent's follow-up) instead of the inbox; may refuse. */
  steer?(message: string): ControlResult;
}

export class RunRegistry {
  private readonly runs = new Map<string, RunEntry>();

  add(entry: RunEntry): void {
    this.runs.set(entry.runId, entry);
  }

  get(runId: string): RunEntry | undefined {
    return this.runs.get(runId);
  }

  end(runId: string, reason: EndReason): void {
    const entry = this.runs.get(runId);
    if (entry) entry.status = reason;
  }

  steer(runId: string, message: string): ControlResult {
    const entry = this.runs.get(runId);
    if (!entry) return { ok: false, message: `Run ${runId} was not found in this turn` };
    if (entry.status !== "running") {
      return { ok: false, message: `Run ${runId} is not running (status: ${entry.status}) -- cannot steer; use kill+respawn instead.` };
    }
    if (message.trim().length === 0) return { ok: false, message: "A steering message cannot be empty" };
    if (entry.steer) return entry.steer(message);
    entry.inbox.push(message);
    return { ok: true };
  }

  kill(runId: string): ControlResult {
    const entry = this.runs.get(runId);
    if (!entry) return { ok: false, message: `Run ${runId} was not found in this turn` };
    if (entry.status !== "running") {
      return { ok: false, message: `Run ${runId} is not running (status: ${entry.status}) -- cannot kill.` };
    }
    entry.abort("killed");
    return { ok: true };
  }

  drain(runId: string): string[] {
    const entry = this.runs.get(runId);
    return entry ? entry.inbox.splice(0, entry.inbox.length) : [];
  }
}
