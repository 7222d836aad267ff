import type { AgentData, Approval, ApprovalState } from "@/lib/contracts";
import type { ControlResult } from "./run-registry";

/**
 * The approvals one turn is waiting for. A call that needs a person's approval asks here
 * and only that call waits: its run's other calls, sibling runs and other chats go on.
 * Each request ends exactly once — approved or denied by a person (`decide`), expired
 * after `timeoutMs`, or cancelled when its run stops — and each end is published, so the
 * approval on the call is the audit record of what happened.
 */

export interface ApprovalDecision {
  approve: boolean;
  /** A denial's reason, read by the model. */
  reason?: string;
  /** The identity id of the person who decided. */
  by: string;
}

export interface ApprovalRequest {
  /** Publishes the approval as the asking agent's own doing (see AgentNode.emit). */
  emit: (data: AgentData) => void;
  runId: string | null;
  callId: string;
  reason: string;
  preview?: string;
  signal: AbortSignal;
  /** Called when the request starts waiting; its result, when it stops (watchdogs). */
  onWait?: () => () => void;
}

export type ApprovalEnd = { state: Exclude<ApprovalState, "pending">; approval: Approval };

interface Waiter {
  runId: string | null;
  callId: string;
  settle: (decision: ApprovalDecision) => void;
}

export interface ApprovalGateOptions {
  timeoutMs: number;
  now: () => number;
}

export class ApprovalGate {
  private readonly waiting = new Set<Waiter>();

  constructor(private readonly options: ApprovalGateOptions) {}

  request(input: ApprovalRequest): Promise<ApprovalEnd> {
    const { now, timeoutMs } = this.options;
    const publish = (approval: Approval) => input.emit({ kind: "approval", callId: input.callId, approval });
    const iso = () => new Date(now()).toISOString();
    const pending: Approval = {
      state: "pending",
      requestedAt: iso(),
      reason: input.reason,
      ...(input.preview !== undefined ? { preview: input.preview } : {}),
    };
    return new Promise<ApprovalEnd>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      let release: (() => void) | undefined;
      const end = (approval: Approval) => {
        if (!this.waiting.has(waiter)) return;
        this.waiting.delete(waiter);
        clearTimeout(timer);
        input.signal.removeEventListener("abort", onAbort);
        release?.();
        publish(approval);
        resolve({ state: approval.state as ApprovalEnd["state"], approval });
      };
      const waiter: Waiter = {
        runId: input.runId,
        callId: input.callId,
        settle: (d) =>
          end({
            ...pending,
            state: d.approve ? "approved" : "denied",
            decidedAt: iso(),
            decidedBy: d.by,
            ...(!d.approve && d.reason ? { denyReason: d.reason } : {}),
          }),
      };
      const onAbort = () => end({ ...pending, state: "cancelled", decidedAt: iso(), note: "The run stopped before anyone answered." });
      this.waiting.add(waiter);
      publish(pending);
      if (input.signal.aborted) return onAbort();
      input.signal.addEventListener("abort", onAbort, { once: true });
      release = input.onWait?.();
      timer = setTimeout(
        () => end({ ...pending, state: "expired", decidedAt: iso(), note: `No one answered within ${formatWait(timeoutMs)}.` }),
        timeoutMs,
      );
    });
  }

  /**
   * A person's decision on call `callId` (of run `runId` when given: model call ids can
   * repeat across runs). Refused when nothing by that id waits, or when it is ambiguous.
   */
  decide(callId: string, runId: string | null | undefined, decision: ApprovalDecision): ControlResult {
    const matches = [...this.waiting].filter((w) => w.callId === callId && (runId === undefined || w.runId === runId));
    if (matches.length === 0) return { ok: false, message: `No approval is waiting for call ${callId}.` };
    if (matches.length > 1) return { ok: false, message: `Several calls ${callId} wait; say which run's.` };
    matches[0]!.settle(decision);
    return { ok: true };
  }
}

export function formatWait(ms: number): string {
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  return ms >= 1000 ? `${Math.round(ms / 1000)} s` : `${ms} ms`;
}
