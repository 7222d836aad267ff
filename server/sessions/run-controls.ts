import type { RunCommand } from "@/lib/contracts";
import type { TurnHandle } from "./turn-runner";

/** The commands the running turn answers itself: steering, killing a run, deciding on an approval. */
export type RunControl = Extract<RunCommand, { kind: "steer" | "kill" | "decide" }>;

export type ControlAnswer = { ok: true } | { ok: false; message: string };

/** The running turn's answer to `command`, or why nothing answers (`handle` absent: no turn runs, or it has not started yet). */
export function controlRun(handle: TurnHandle | undefined, command: RunControl): ControlAnswer {
  switch (command.kind) {
    case "steer":
      return handle?.steer(command.runId, command.message) ?? notRunning(command.runId);
    case "kill":
      return handle?.kill(command.runId) ?? notRunning(command.runId);
    case "decide": {
      const decision = { approve: command.approve, by: command.by, ...(command.reason !== undefined ? { reason: command.reason } : {}) };
      return (
        handle?.decide?.(command.callId, command.runId, decision) ?? {
          ok: false,
          message: `No approval is waiting for call ${command.callId}.`,
        }
      );
    }
  }
}

function notRunning(runId: string): ControlAnswer {
  return { ok: false, message: `Run ${runId} is not running.` };
}
