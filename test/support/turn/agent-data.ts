import { isDataEvent, type AgentDataKind, type AgentDataOf, type AgentEvent } from "@/lib/contracts";

/** One agent's doing as a test reads it: the payload, with the turn and the acting run beside it (`runId` null: the master). */
export type DataOf<K extends AgentDataKind> = AgentDataOf<K> & { turnId: string; runId: string | null };

/**
 * The payloads of kind `kind` in `events`, in order, each with its turn and run: of every
 * agent, of the master only (`"master"`), or of one run (its id).
 */
export function dataOf<K extends AgentDataKind>(events: readonly AgentEvent[], kind: K, who?: "master" | (string & {})): DataOf<K>[] {
  const out: DataOf<K>[] = [];
  for (const event of events) {
    if (!isDataEvent(event) || event.data.kind !== kind) continue;
    if (who === "master" ? event.runId !== null : who !== undefined && event.runId !== who) continue;
    out.push({ ...(event.data as AgentDataOf<K>), turnId: event.turnId, runId: event.runId });
  }
  return out;
}

/** A data event as a test reads it (see `dataOf`); `undefined` for any other event. */
export function flatData(event: AgentEvent): DataOf<AgentDataKind> | undefined {
  return isDataEvent(event) ? { ...event.data, turnId: event.turnId, runId: event.runId } : undefined;
}

/** Whether `event` is what some agent did of kind `kind`. */
export function isData<K extends AgentDataKind>(event: AgentEvent, kind: K): boolean {
  return isDataEvent(event) && event.data.kind === kind;
}
