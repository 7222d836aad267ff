import type { AgentEvent, ModelCallRecord } from "@/lib/contracts";
import type { OutboxMeter } from "@/server/data/write-outbox";

/**
 * What a chat's session shows whoever watches the process as a whole (its metrics): each
 * event of a turn it runs, once folded, and each model request's record. Events this
 * process only mirrors (another runs the turn) are not shown: the owner counts them.
 * `outbox`: every chat's write outbox reports to it.
 */
export interface SessionObserver {
  event(event: AgentEvent, sessionId: string): void;
  modelCall(record: ModelCallRecord): void;
  outbox?: OutboxMeter;
}
