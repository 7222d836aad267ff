import type { AgentEvent } from "@/lib/contracts";
import { parseMarkup } from "./parse";
import { serializeMarkup } from "./serialize";
import { applyEvent } from "./transforms";

/**
 * The naive baseline for the benchmark: keep only the markup string, and for every event
 * parse all of it, apply the event, and serialise all of it again — what a string-only
 * implementation of seed 001's transforms costs. Its work grows with the message's length
 * on every event; the tree transforms' does not. Same semantics, by construction.
 */
export function applyEventNaive(markup: string, event: AgentEvent): string {
  return serializeMarkup(applyEvent(parseMarkup(markup, event.turnId), event));
}
