import type { AgentEvent, ChatTurn, TurnStatus } from "@/lib/contracts";
import { applyEvent, turnFromStart } from "@/lib/turn/reduce";

/** What an A2A caller is told of one event of the turn its task runs as. */
export type TurnProgress =
  { kind: "status"; text: string } | { kind: "ended"; status: Exclude<TurnStatus, "running">; answer: string; error?: string };

/** A subagent's task shown in its "started" line at most this long. */
const TASK_PREVIEW_CHARS = 120;

/**
 * Follows one turn's events for an A2A caller: a line as each subagent starts and ends,
 * one when a call waits for its owner's approval, and at the end the master's answer
 * (the text of its last step that wrote any, folded by the turn reducer) or the turn's
 * error. Events of other turns are ignored.
 */
export class TurnFollower {
  private turn: ChatTurn | null = null;
  private readonly toolNames = new Map<string, string>();
  /** Kept from `subagent_started`: the end events carry only the run id. */
  private readonly runNames = new Map<string, string>();

  constructor(
    private readonly sessionId: string,
    readonly turnId: string,
  ) {}

  next(event: AgentEvent): TurnProgress[] {
    if (event.turnId !== this.turnId) return [];
    if (event.type === "turn:started") this.turn = turnFromStart(event, this.sessionId);
    else if (this.turn) this.turn = applyEvent(this.turn, event);
    switch (event.type) {
      case "subagent_started":
        this.runNames.set(event.runId, event.name);
        return [{ kind: "status", text: `${event.name}: started ${preview(event.task)}` }];
      case "subagent_completed":
        return [{ kind: "status", text: `${this.runName(event.runId)}: completed` }];
      case "subagent_error":
        return [{ kind: "status", text: `${this.runName(event.runId)}: ${event.endReason.replace(/_/g, " ")} (${event.error})` }];
      case "turn:data":
      case "subagent_data": {
        const data = event.data;
        if (data.kind === "tool_call") this.toolNames.set(data.callId, data.name);
        if (data.kind === "approval" && data.approval.state === "pending")
          return [{ kind: "status", text: `Waiting for approval in Delegate: ${this.toolNames.get(data.callId) ?? "a tool"}` }];
        return [];
      }
      case "turn:ended":
        return [
          {
            kind: "ended",
            status: event.status,
            answer: this.turn ? lastAnswer(this.turn) : "",
            ...(event.error ? { error: event.error } : {}),
          },
        ];
      default:
        return [];
    }
  }

  private runName(runId: string): string {
    return this.runNames.get(runId) ?? "subagent";
  }
}

/** The master's final answer: the text of its last step that wrote any. */
export function lastAnswer(turn: ChatTurn): string {
  for (let i = turn.steps.length - 1; i >= 0; i--) {
    const text = turn.steps[i]!.text;
    if (text.trim()) return text;
  }
  return "";
}

function preview(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > TASK_PREVIEW_CHARS ? `${line.slice(0, TASK_PREVIEW_CHARS - 1)}…` : line;
}
