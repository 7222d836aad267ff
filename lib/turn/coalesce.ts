import { isDataEvent, type AgentDataEvent, type AgentEvent } from "@/lib/contracts";

/**
 * Streamed text events, merged where they continue one another, so that a holder which
 * folds a batch of events at once (the server's DroneSession, between two reads of its
 * turn) pays one path copy per stretch of text instead of one per token.
 *
 * Why it folds to the same turn: a text event says "these characters sit at `offset`"
 * (lib/turn/text-offset.ts). Two events of the same text, the second starting where the
 * first ends, say together what one event with both texts says; the reducer keeps a
 * prefix and appends only the unseen tail, or ignores a gap, identically for both. Only
 * events next to each other merge, so no other event (a status change, a new step) is
 * ever applied out of its place.
 */

/** The events whose text streams: any agent's tokens and reasoning. */
export type TextEvent = AgentDataEvent & { data: { kind: "token" | "thinking" } };

export function isTextEvent(event: AgentEvent): event is TextEvent {
  return isDataEvent(event) && (event.data.kind === "token" || event.data.kind === "thinking");
}

/** `events` with each stretch of contiguous text events of one text merged into one event; other events unchanged, in order. */
export function coalesceText(events: readonly AgentEvent[]): AgentEvent[] {
  const out: AgentEvent[] = [];
  let run: TextEvent[] = [];
  const close = () => {
    if (run.length > 0) out.push(run.length === 1 ? run[0]! : merge(run));
    run = [];
  };
  for (const event of events) {
    if (!isTextEvent(event)) {
      close();
      out.push(event);
      continue;
    }
    const last = run[run.length - 1];
    if (last && !continues(last, event)) close();
    run.push(event);
  }
  close();
  return out;
}

/** Whether `next` is the same text as `prev` (same turn, run, kind and step), starting where `prev` ends. */
function continues(prev: TextEvent, next: TextEvent): boolean {
  if (prev.turnId !== next.turnId || prev.runId !== next.runId) return false;
  const a = prev.data;
  const b = next.data;
  return b.kind === a.kind && b.step === a.step && b.offset === a.offset + a.text.length;
}

function merge(run: readonly TextEvent[]): TextEvent {
  const first = run[0]!;
  const text = run.map((event) => event.data.text).join("");
  return { ...first, data: { ...first.data, text } };
}
