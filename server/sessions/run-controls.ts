import type { ErrorCode, RunCommand } from "@/lib/contracts";
import type { TurnHandle } from "./turn-runner";

/** The commands the running turn answers itself: steering, killing a run, deciding on an approval, answering a question. */
export type RunControl = Extract<RunCommand, { kind: "steer" | "kill" | "decide" | "answer" }>;

/** `code`: how the person's client should read a refusal (absent: nothing by that id waits, `not_found`). */
export type ControlAnswer = { ok: true } | { ok: false; message: string; code?: ErrorCode };

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
    case "answer": {
      const answer = {
        action: command.action,
        by: command.by,
        ...(command.content !== undefined ? { content: command.content } : {}),
      };
      return (
        handle?.answer?.(command.callId, command.runId, answer) ?? {
          ok: false,
          message: `No question is waiting for an answer on call ${command.callId}.`,
        }
      );
    }
  }
}

function notRunning(runId: string): ControlAnswer {
  return { ok: false, message: `Run ${runId} is not running.` };
}
