import type { SearchField, SearchHit, SessionSummary } from "@/lib/contracts";
import { highlightsOf, matchCount, snippetOf, type ParsedQuery } from "./terms";

/** A turn that matched, as search stored it. */
export interface MatchedTurn {
  turnId: string;
  sessionId: string;
  at: Date;
  prompt: string;
  answer: string;
  results: string;
}

/**
 * How much a match counts by where it is: a chat named for the words is the likeliest
 * one meant, then the question asked, then the answer, then a subagent's result.
 */
const WEIGHT: Record<SearchField, number> = { title: 8, prompt: 4, answer: 2, subagent: 1 };

/** The field of a turn that best answers the query, and its score (weight × share of the query found there). */
function bestField(turn: MatchedTurn, q: ParsedQuery, subagents: boolean): { field: SearchField; score: number; text: string } {
  const parts = q.words.length + (q.prefix === null ? 0 : 1);
  const fields: [SearchField, string][] = [
    ["prompt", turn.prompt],
    ["answer", turn.answer],
  ];
  if (subagents) fields.push(["subagent", turn.results]);
  let best = { field: "prompt" as SearchField, score: 0, text: turn.prompt };
  for (const [field, text] of fields) {
    const score = (WEIGHT[field] * matchCount(text, q)) / parts;
    if (score > best.score) best = { field, score, text };
  }
  return best;
}

/**
 * One result per chat, best first: the title's weight if the title matched, plus the
 * best turn's; equal scores by latest activity. `sessions` holds only chats the asker
 * owns, so a turn of any other chat is dropped here whatever the index said.
 */
export function rankHits(
  q: ParsedQuery,
  sessions: ReadonlyMap<string, SessionSummary>,
  titleMatches: ReadonlySet<string>,
  turns: readonly MatchedTurn[],
  subagents: boolean,
  limit: number,
): SearchHit[] {
  const best = new Map<string, { turn: MatchedTurn; field: SearchField; score: number; text: string }>();
  for (const turn of turns) {
    if (!sessions.has(turn.sessionId)) continue;
    const scored = bestField(turn, q, subagents);
    const held = best.get(turn.sessionId);
    if (!held || scored.score > held.score || (scored.score === held.score && turn.at > held.turn.at))
      best.set(turn.sessionId, { turn, ...scored });
  }
  const ids = new Set([...titleMatches, ...best.keys()].filter((id) => sessions.has(id)));
  const ranked = [...ids].map((id) => {
    const session = sessions.get(id)!;
    const turn = best.get(id);
    const score = (titleMatches.has(id) ? WEIGHT.title : 0) + (turn?.score ?? 0);
    const hit: SearchHit = {
      session,
      titleHighlights: highlightsOf(session.title, q),
      field: turn ? turn.field : "title",
      turnId: turn ? turn.turn.turnId : null,
      snippet: turn ? snippetOf(turn.text, q) : { text: "", highlights: [] },
    };
    return { hit, score };
  });
  ranked.sort(
    (a, b) =>
      b.score - a.score ||
      (a.hit.session.updatedAt < b.hit.session.updatedAt ? 1 : a.hit.session.updatedAt > b.hit.session.updatedAt ? -1 : 0),
  );
  return ranked.slice(0, limit).map((r) => r.hit);
}
