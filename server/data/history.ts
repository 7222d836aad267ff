import type { ChatTurn } from "@/lib/contracts";
import { AppError } from "@/lib/contracts";
import type { Models } from "@/models";
import { assembleHistory, type CallRow, type HistoryRows, type RunRow, type StoredSteps, type TurnRow } from "./assemble-turn";
import { stepTextId } from "./event-store";
import type { TurnLink } from "@/lib/branches/branch-tree";

/**
 * A session's whole history in three queries (turns, tool calls, subagent runs), however
 * many turns it has, assembled into the turn tree (`ChatTurn`) by `assembleHistory`.
 */

/** Turn order: by start, and by id between turns started in the same millisecond (pages and the whole history agree). */
const TURN_ORDER = { createdAt: 1, _id: 1 } as const;
const TURN_ORDER_NEWEST_FIRST = { createdAt: -1, _id: -1 } as const;

/** Three queries, and a fourth only when some text was too long for its document. */
export async function loadHistoryRows(models: Models, sessionId: string, turnIds?: readonly string[]): Promise<HistoryRows> {
  const only = turnIds ? { turnId: { $in: turnIds } } : {};
  const [turns, calls, runs] = await Promise.all([
    models.Turn.find({ sessionId, ...(turnIds ? { _id: { $in: turnIds } } : {}) })
      .sort(TURN_ORDER)
      .lean<TurnRow[]>(),
    models.ToolCall.find({ sessionId, ...only }, { _id: 0, sessionId: 0 }).lean<CallRow[]>(),
    models.SubagentRun.find({ sessionId, ...only }, { sessionId: 0 }).lean<RunRow[]>(),
  ]);
  return withLongTexts(models, sessionId, { turns, calls, runs });
}

/** One page of a session's rows and whether older turns exist. */
export interface HistoryPageRows extends HistoryRows {
  hasOlder: boolean;
}

/**
 * The `limit` turns just before the turn `before` (the newest `limit` without it), with
 * their calls and runs only: one indexed query with a limit for the turns (one more row
 * than asked says whether older ones exist), then their calls and runs by turn id.
 * `before` must be a turn of this session (`bad_request` otherwise).
 */
export async function loadHistoryPageRows(models: Models, sessionId: string, limit: number, before?: string): Promise<HistoryPageRows> {
  let filter: Record<string, unknown> = { sessionId };
  if (before !== undefined) {
    const anchor = await models.Turn.findOne({ _id: before, sessionId }, { createdAt: 1 }).lean<{ _id: string; createdAt: Date }>();
    if (!anchor) throw new AppError("bad_request", "Invalid session:older request: before is not a turn of this chat.");
    filter = { sessionId, $or: [{ createdAt: { $lt: anchor.createdAt } }, { createdAt: anchor.createdAt, _id: { $lt: anchor._id } }] };
  }
  const newestFirst = await models.Turn.find(filter)
    .sort(TURN_ORDER_NEWEST_FIRST)
    .limit(limit + 1)
    .lean<TurnRow[]>();
  const hasOlder = newestFirst.length > limit;
  const turns = newestFirst.slice(0, limit).reverse();
  if (turns.length === 0) return { turns, calls: [], runs: [], hasOlder };
  const pageIds = turns.map((t) => t._id);
  const [calls, runs] = await Promise.all([
    models.ToolCall.find({ sessionId, turnId: { $in: pageIds } }, { _id: 0, sessionId: 0 }).lean<CallRow[]>(),
    models.SubagentRun.find({ sessionId, turnId: { $in: pageIds } }, { sessionId: 0 }).lean<RunRow[]>(),
  ]);
  return { ...(await withLongTexts(models, sessionId, { turns, calls, runs })), hasOlder };
}

/**
 * A page of a branch (`path`: its turn ids, oldest first, as the branch tree gives them):
 * the page's ids are cut from the path here, so the database is asked for those turns
 * alone, never for the whole branch. `before` must be on the path (`bad_request` otherwise).
 */
async function loadBranchPageRows(
  models: Models,
  sessionId: string,
  limit: number,
  before: string | undefined,
  path: readonly string[],
): Promise<HistoryPageRows> {
  const end = before === undefined ? path.length : path.indexOf(before);
  if (end < 0) throw new AppError("bad_request", "Invalid session:older request: before is not a turn of this chat on the branch in view.");
  const start = Math.max(0, end - limit);
  return { ...(await loadHistoryRows(models, sessionId, path.slice(start, end))), hasOlder: start > 0 };
}

/** Adds the texts that outgrew their documents, read in one more query when there are any. */
async function withLongTexts(models: Models, sessionId: string, rows: Omit<HistoryRows, "longTexts">): Promise<HistoryRows> {
  const { turns, runs } = rows;
  const ids = [
    ...turns.flatMap((t) => chunkedIds(t._id, null, t.steps)),
    ...runs.flatMap((r) => [
      ...chunkedIds(r.turnId, r._id, r.steps),
      ...(r.responseChunks ? [stepTextId(r.turnId, r._id, "response")] : []),
    ]),
  ];
  if (ids.length === 0) return rows;
  const chunks = await models.TextChunk.find({ sessionId, textId: { $in: ids } }, { textId: 1, n: 1, data: 1 })
    .sort({ textId: 1, n: 1 })
    .lean<{ textId: string; data: string }[]>();
  const longTexts = new Map<string, string>();
  for (const chunk of chunks) longTexts.set(chunk.textId, (longTexts.get(chunk.textId) ?? "") + chunk.data);
  return { ...rows, longTexts };
}

function chunkedIds(turnId: string, runId: string | null, steps: StoredSteps | undefined): string[] {
  return (steps ?? []).flatMap((step, i) => [
    ...(step?.textChunks ? [stepTextId(turnId, runId, `${i}:text`)] : []),
    ...(step?.thinkingChunks ? [stepTextId(turnId, runId, `${i}:thinking`)] : []),
  ]);
}

/** `turnIds`: only these turns (a branch); all of the chat's without. */
export async function loadHistory(models: Models, sessionId: string, turnIds?: readonly string[]): Promise<ChatTurn[]> {
  return assembleHistory(sessionId, await loadHistoryRows(models, sessionId, turnIds));
}

/** Every turn's link to the turn it follows, in start order: the chat's branch tree (lib/branches/branch-tree.ts). */
export async function loadTurnLinks(models: Models, sessionId: string): Promise<TurnLink[]> {
  const rows = await models.Turn.find({ sessionId }, { _id: 1, parentTurnId: 1 })
    .sort(TURN_ORDER)
    .lean<{ _id: string; parentTurnId?: string | null }[]>();
  return rows.map((r) => (r.parentTurnId === undefined ? { turnId: r._id } : { turnId: r._id, parentTurnId: r.parentTurnId }));
}

/** A page of turns (see `loadHistoryPageRows`), of the branch `path` when given, assembled; `older` is its oldest turn's id while older turns exist. */
export async function loadHistoryPage(
  models: Models,
  sessionId: string,
  limit: number,
  before?: string,
  path?: readonly string[],
): Promise<{ turns: ChatTurn[]; older: string | null }> {
  const rows = path
    ? await loadBranchPageRows(models, sessionId, limit, before, path)
    : await loadHistoryPageRows(models, sessionId, limit, before);
  const turns = assembleHistory(sessionId, rows);
  return { turns, older: rows.hasOlder ? (turns[0]?.turnId ?? null) : null };
}
