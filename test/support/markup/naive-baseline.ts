import type { AgentEvent } from "@/lib/contracts";
import { applyEvent } from "@/lib/turn/reduce";
import { parseTurnMarkup } from "./parse";
import { serializeTurn } from "@/lib/markup/serialize";

/**
 * The naive baseline for the benchmark: keep only the markup string, and for every event
 * parse all of it, apply the event, and serialise all of it again — what a string-only
 * implementation of the markup transforms costs. Its work grows with the message's length
 * on every event; the reducer's does not. Same semantics, by construction.
 */
export function applyEventNaive(markup: string, event: AgentEvent): string {
  return serializeTurn(applyEvent(parseTurnMarkup(markup), event));
}
