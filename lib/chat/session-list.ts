import type { SessionCursor, SessionSummary } from "@/lib/contracts";

/**
 * The sidebar's list as the browser holds it: the pages loaded so far, newest activity
 * first, and where the next page starts (null once the end was reached). Pure functions:
 * the provider keeps one of these and the server's pushes fold into it.
 */
export interface SessionList {
  sessions: SessionSummary[];
  next: SessionCursor | null;
}

/** Newest activity first; the id orders equal times as the server does. */
export function compareSessions(a: SessionSummary, b: SessionSummary): number {
  if (a.updatedAt !== b.updatedAt) return a.updatedAt < b.updatedAt ? 1 : -1;
  return a.sessionId === b.sessionId ? 0 : a.sessionId < b.sessionId ? 1 : -1;
}

function sorted(list: SessionSummary[]): SessionSummary[] {
  return list.sort(compareSessions);
}

/** The first page, as `session:page` answered it. */
export function firstPage(sessions: SessionSummary[], next: SessionCursor | null): SessionList {
  return { sessions: sorted([...sessions]), next };
}

/** A later page appended (chats already held are not repeated). */
export function appendPage(list: SessionList, sessions: SessionSummary[], next: SessionCursor | null): SessionList {
  const held = new Set(list.sessions.map((s) => s.sessionId));
  return { sessions: sorted([...list.sessions, ...sessions.filter((s) => !held.has(s.sessionId))]), next };
}

/**
 * The server's push of the first page (`sessions:changed`, at most `pageSize` chats): it
 * replaces what the list held down to its last chat; chats held below that (loaded by
 * scrolling) stay. A push shorter than a page is the whole list.
 */
export function mergeFirstPage(list: SessionList | null, page: SessionSummary[], pageSize: number): SessionList {
  const fresh = sorted([...page]);
  const last = fresh.at(-1);
  if (fresh.length < pageSize || !last) return { sessions: fresh, next: null };
  const inPage = new Set(fresh.map((s) => s.sessionId));
  const below = (list?.sessions ?? []).filter((s) => !inPage.has(s.sessionId) && compareSessions(s, last) > 0);
  const next = below.length > 0 ? (list?.next ?? null) : { updatedAt: last.updatedAt, sessionId: last.sessionId };
  return { sessions: [...fresh, ...below], next };
}

/** One chat added or changed (a local ack); it moves to its place. */
export function upsertSession(list: SessionList | null, item: SessionSummary): SessionList {
  return { sessions: sorted([item, ...(list?.sessions ?? []).filter((s) => s.sessionId !== item.sessionId)]), next: list?.next ?? null };
}

export function removeSession(list: SessionList | null, sessionId: string): SessionList {
  return { sessions: (list?.sessions ?? []).filter((s) => s.sessionId !== sessionId), next: list?.next ?? null };
}
