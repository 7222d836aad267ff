import {
  MAX_SEARCH_RESULTS,
  type ChatTurn,
  type SearchResults,
  type SessionCursor,
  type SessionPage,
  type SessionSummary,
} from "@/lib/contracts";
import { rankHits, type MatchedTurn } from "@/lib/search/rank";
import { escapeRegex, isEmptyQuery, parseQuery, termsOf, type ParsedQuery } from "@/lib/search/terms";
import { turnSearchText } from "@/lib/search/turn-text";
import type { Models } from "@/models";
import { MemberStore } from "@/server/members/member-store";
import { loadHistory } from "./history";
import { SESSION_SUMMARY_FIELDS as SUMMARY_FIELDS, toSummary, type SessionRow } from "./session-row";

/**
 * Search and the sidebar's pages over MongoDB (see lib/search/terms.ts for why a term
 * array and not `$text`). Every query starts with the asker's `ownerId`; the chats a
 * result names are read again by id *and* owner before anything is answered.
 */

/*
 * Indexes: on MongoDB, {ownerId, terms} / {ownerId, allTerms} / {ownerId, titleTerms}
 * (multikey) serve `$all` and the anchored prefix. The test database server keeps unique
 * indexes only, so there the same queries scan the collection (same answers, slower; see
 * the search benchmark).
 */

/** Newest matching turns considered for ranking; past this, older matches are left out. */
const CANDIDATE_TURNS = 300;
const CANDIDATE_TITLES = 100;

/** The filter on a term array for a parsed query: every whole word, and a term starting with the prefix. */
function termFilter(field: string, q: ParsedQuery): Record<string, unknown> {
  const parts: Record<string, unknown>[] = [];
  if (q.words.length > 0) parts.push({ [field]: { $all: q.words } });
  // Escaped although a normalised prefix holds letters and digits only: defence in depth.
  if (q.prefix !== null) parts.push({ [field]: { $regex: `^${escapeRegex(q.prefix)}` } });
  return parts.length === 1 ? parts[0]! : { $and: parts };
}

export async function searchSessions(models: Models, ownerId: string, query: string, subagents = false): Promise<SearchResults> {
  const q = parseQuery(query);
  if (isEmptyQuery(q)) return { query, hits: [] };
  const { Session, SearchEntry } = models;
  // The chats shared with the asker are searched with their own (an entry names its chat's owner only).
  const shared = await new MemberStore(models).sharedWith(ownerId);
  const entryScope = shared.length > 0 ? { $or: [{ ownerId }, { sessionId: { $in: shared } }] } : { ownerId };
  const mine = { $or: [{ ownerId }, { "members.accountId": ownerId }] };
  const [titleRows, entryRows] = await Promise.all([
    Session.find({ $and: [mine, termFilter("titleTerms", q)] }, SHARED_FIELDS)
      .sort({ updatedAt: -1 })
      .limit(CANDIDATE_TITLES)
      .lean<SharedRow[]>(),
    SearchEntry.find(
      { ...entryScope, ...termFilter(subagents ? "allTerms" : "terms", q), offBranch: { $ne: true } },
      { sessionId: 1, at: 1, prompt: 1, answer: 1, results: 1 },
    )
      .sort({ at: -1 })
      .limit(CANDIDATE_TURNS)
      .lean<{ _id: string; sessionId: string; at: Date; prompt: string; answer: string; results: string }[]>(),
  ]);
  const sessions = new Map((await summariesFor(models, ownerId, titleRows)).map((s) => [s.sessionId, s]));
  const missing = [...new Set(entryRows.map((e) => e.sessionId))].filter((id) => !sessions.has(id));
  if (missing.length > 0) {
    // Owner or member checked again: an entry is trusted for nothing but a chat id.
    const rows = await Session.find({ $and: [{ _id: { $in: missing } }, mine] }, SHARED_FIELDS).lean<SharedRow[]>();
    for (const summary of await summariesFor(models, ownerId, rows)) sessions.set(summary.sessionId, summary);
  }
  const turns: MatchedTurn[] = entryRows.map((e) => ({
    turnId: e._id,
    sessionId: e.sessionId,
    at: e.at,
    prompt: e.prompt,
    answer: e.answer,
    results: e.results,
  }));
  return { query, hits: rankHits(q, sessions, new Set(titleRows.map((r) => r._id)), turns, subagents, MAX_SEARCH_RESULTS) };
}

type SharedRow = SessionRow & { ownerId: string; members?: { accountId: string; role: "viewer" | "collaborator" }[] };
const SHARED_FIELDS = { ...SUMMARY_FIELDS, ownerId: 1, members: 1 } as const;

/** Rows as `userId` sees them: a chat someone else owns is marked shared, with its owner's name and the reader's role. */
async function summariesFor(models: Models, userId: string, rows: readonly SharedRow[]): Promise<SessionSummary[]> {
  const owners = [...new Set(rows.filter((r) => r.ownerId !== userId).map((r) => r.ownerId))];
  const names = await new MemberStore(models).names(owners);
  return rows.map((row) => {
    const summary = toSummary(row);
    if (row.ownerId === userId) return summary;
    const role = row.members?.find((m) => m.accountId === userId)?.role ?? "viewer";
    return { ...summary, shared: { owner: names.get(row.ownerId) ?? "someone", role } };
  });
}

/** Writes (or rewrites) the search entries of `turns` of one chat. */
export async function indexTurns(models: Models, sessionId: string, turns: readonly ChatTurn[]): Promise<void> {
  const owner = await models.Session.findById(sessionId, { ownerId: 1 }).lean<{ ownerId: string }>();
  // A chat deleted meanwhile: nothing to index.
  if (!owner || turns.length === 0) return;
  await models.SearchEntry.bulkWrite(
    turns.map((turn) => ({
      // A set, not a replacement: whether the turn is on the branch in view is kept.
      updateOne: {
        filter: { _id: turn.turnId },
        update: { $set: { ownerId: owner.ownerId, sessionId, at: new Date(turn.createdAt), ...turnSearchText(turn) } },
        upsert: true,
      },
    })),
    { ordered: false },
  );
}

/**
 * Search finds what the chat shows: the turns of `path` (the branch in view) and none of
 * the branches left beside it. Written when the branch in view changes (an edit, a
 * regeneration, a switch), not on a plain send, which only lengthens the branch.
 */
export async function markBranchInView(models: Models, sessionId: string, path: readonly string[]): Promise<void> {
  await models.SearchEntry.bulkWrite(
    [
      { updateMany: { filter: { sessionId, _id: { $nin: [...path] }, offBranch: { $ne: true } }, update: { $set: { offBranch: true } } } },
      { updateMany: { filter: { sessionId, _id: { $in: [...path] }, offBranch: true }, update: { $unset: { offBranch: "" } } } },
    ],
    { ordered: true },
  );
}

/**
 * Indexes chats stored before search existed (or imported by an older version): their
 * titles and every turn, a chat at a time, each marked when done. Returns how many.
 */
export async function backfillSearch(models: Models, options: { batch?: number } = {}): Promise<number> {
  const batch = options.batch ?? 50;
  let done = 0;
  for (;;) {
    const rows = await models.Session.find({ searchIndexed: null }, { title: 1 }).limit(batch).lean<{ _id: string; title: string }[]>();
    if (rows.length === 0) return done;
    for (const row of rows) {
      await indexTurns(models, row._id, await loadHistory(models, row._id));
      // Not through `timestamps`: indexing is not activity, the sidebar order must not change.
      await models.Session.collection.updateOne(
        { _id: row._id as never },
        { $set: { titleTerms: termsOf(row.title), searchIndexed: true } },
      );
      done++;
    }
  }
}

/** One page of the sidebar: the person's chats and those shared with them after `before`, newest activity first. */
export async function listSessionPage(models: Models, ownerId: string, limit: number, before?: SessionCursor): Promise<SessionPage> {
  const at = before ? new Date(before.updatedAt) : null;
  const mine = { $or: [{ ownerId }, { "members.accountId": ownerId }] };
  const filter = at ? { $and: [mine, { $or: [{ updatedAt: { $lt: at } }, { updatedAt: at, _id: { $lt: before!.sessionId } }] }] } : mine;
  const rows = await models.Session.find(filter, SHARED_FIELDS)
    .sort({ updatedAt: -1, _id: -1 })
    .limit(limit + 1)
    .lean<SharedRow[]>();
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    sessions: await summariesFor(models, ownerId, page),
    next: rows.length > limit && last ? { updatedAt: last.updatedAt.toISOString(), sessionId: last._id } : null,
  };
}
