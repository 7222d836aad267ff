import type { AgentEvent, NoticeKind } from "@/lib/contracts";

/** A moment of a chat worth a notification, before it is worded for anyone. */
export interface Notice {
  kind: NoticeKind;
  turnId: string;
  /** The run whose call waits (null: the master's, or the turn's end). */
  runId: string | null;
  /** The waiting call (approvals and questions). */
  callId?: string;
  /** The waiting call's tool, when its `tool_call` was seen (or the caller could look it up). */
  tool?: string;
  /** The approval's reason, the question, or the turn's error: the agent's words, untrusted. */
  detail?: string;
}

/** Turns whose call names are kept at once; past it the oldest go (a turn this process never saw end). */
const MAX_TURNS = 1_000;

/**
 * Reads a chat's events as they stream and says which are notices: a turn that completed
 * or failed (a cancel is the person's own doing), a call's approval or question as it
 * starts waiting. An approval names only its call, so the tool names of the calls seen
 * are kept per turn until the turn ends; `nameOf` answers for calls seen before this
 * tracker was (the page's turns after a reload).
 */
export class NoticeTracker {
  private readonly tools = new Map<string, Map<string, string>>();

  constructor(private readonly nameOf?: (turnId: string, callId: string) => string | undefined) {}

  observe(event: AgentEvent): Notice | null {
    if (event.type === "turn:ended") {
      this.tools.delete(event.turnId);
      if (event.status === "completed") return { kind: "finished", turnId: event.turnId, runId: null };
      if (event.status === "failed") return { kind: "failed", turnId: event.turnId, runId: null, detail: event.error ?? "" };
      return null;
    }
    if (event.type !== "turn:data" && event.type !== "subagent_data") return null;
    const { data, turnId, runId } = event;
    if (data.kind === "tool_call") {
      this.remember(turnId, data.callId, data.name);
      return null;
    }
    if (data.kind === "approval" && data.approval.state === "pending") {
      return this.waiting("approval", turnId, runId, data.callId, data.approval.reason);
    }
    if (data.kind === "input" && data.input.state === "pending") {
      return this.waiting("input", turnId, runId, data.callId, data.input.message);
    }
    return null;
  }

  private waiting(kind: NoticeKind, turnId: string, runId: string | null, callId: string, detail: string): Notice {
    const tool = this.tools.get(turnId)?.get(callId) ?? this.nameOf?.(turnId, callId);
    return { kind, turnId, runId, callId, detail, ...(tool ? { tool } : {}) };
  }

  private remember(turnId: string, callId: string, name: string): void {
    let calls = this.tools.get(turnId);
    if (!calls) {
      if (this.tools.size >= MAX_TURNS) this.tools.delete(this.tools.keys().next().value!);
      calls = new Map();
      this.tools.set(turnId, calls);
    }
    calls.set(callId, name);
  }
}
