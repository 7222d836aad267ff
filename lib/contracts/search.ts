import { z } from "zod";
import type { SessionSummary } from "./turn";

/** Longest search query accepted; longer ones are refused, not cut, so the person knows. */
export const MAX_SEARCH_CHARS = 200;
/** Results one search answers at most. */
export const MAX_SEARCH_RESULTS = 20;
/** Chats the sidebar's first page holds (and what `sessions:changed` carries). */
export const SESSION_PAGE_SIZE = 50;
/** The most chats one `session:page` may ask for. */
export const MAX_SESSION_PAGE = 200;

const id = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_-]+$/, "must be an id");

/**
 * Where the sidebar's list continues: the last chat it holds (newest activity first, the
 * id breaking ties). Only a position: the query is always the asker's own chats, so a
 * cursor copied from someone else's list reveals nothing and reaches nothing of theirs.
 */
export const sessionCursorSchema = z.strictObject({
  updatedAt: z.iso.datetime(),
  sessionId: id,
});
export type SessionCursor = z.infer<typeof sessionCursorSchema>;

export const sessionPageSchema = z.strictObject({
  before: sessionCursorSchema.optional(),
  limit: z.number().int().min(1).max(MAX_SESSION_PAGE).optional(),
});
export type SessionPageInput = z.infer<typeof sessionPageSchema>;

export interface SessionPage {
  sessions: SessionSummary[];
  /** Null when the list ends with this page. */
  next: SessionCursor | null;
}

export const sessionSearchSchema = z.strictObject({
  query: z.string().max(MAX_SEARCH_CHARS, `must be at most ${MAX_SEARCH_CHARS} characters`),
  /** Search subagents' results too (off by default: they are long and match much). */
  subagents: z.boolean().optional(),
});
export type SessionSearch = z.infer<typeof sessionSearchSchema>;

/** [start, end) character ranges to highlight. */
export type HighlightRanges = [number, number][];

/** Where a result's match was found. */
export type SearchField = "title" | "prompt" | "answer" | "subagent";

/** One chat that matched: its title (highlighted), a short excerpt of the best match, and the turn it is in. */
export interface SearchHit {
  session: SessionSummary;
  titleHighlights: HighlightRanges;
  field: SearchField;
  /** The turn to scroll to; null when only the title matched. */
  turnId: string | null;
  snippet: { text: string; highlights: HighlightRanges };
}

export interface SearchResults {
  query: string;
  hits: SearchHit[];
}
