import {
  AppError,
  type ChatTurn,
  type InputRequest,
  type ModelCallRecord,
  type ModelCallSummary,
  type SearchResults,
  type SessionCursor,
  type SessionPage,
  type SessionSummary,
} from "@/lib/contracts";
import { termsOf } from "@/lib/search/terms";
import type { Models } from "@/models";
import { MemberStore } from "@/server/members/member-store";
import { EventStore, toolCallRecordId, type EventStoreOptions } from "./event-store";
import { eventsOfTurn } from "@/lib/turn/turn-events";
import { loadHistory, loadHistoryPage, loadTurnLinks } from "./history";
import type { TurnLink } from "@/lib/branches/branch-tree";
import { newId } from "./ids";
import { SESSION_SUMMARY_FIELDS as SUMMARY_FIELDS, toSummary, type SessionRow } from "./session-row";
import { backfillSearch, indexTurns, listSessionPage, markBranchInView, searchSessions } from "./search-index";
import { listModelCalls, loadModelCall, loadTurnModelCalls, ModelCallLog, type ModelCallLogOptions } from "./model-call-log";
import { GHOST_RUNS_END, GHOST_TURN_ERROR } from "@/lib/turn/ghost-sweep";
import { endPendingInputs } from "@/lib/turn/reduce";
import { AttachmentStore, type AttachmentLimits } from "@/server/attachments/attachment-store";

/**
 * The data access the app needs, behind one small interface (the repository the server
 * is given, as socket.io's basic CRUD example passes its own): sessions, a session's
 * history, the whole text of one tool output, the writer of a session's events, and the
 * start-up sweep. `mongoStore` implements it over the models of one connection.
 *
 * Every lookup by owner answers a session that is someone else's exactly like one that
 * does not exist, so ids cannot be probed.
 */
export interface ChatStore {
  listSessions(ownerId: string): Promise<SessionSummary[]>;
  countSessions(ownerId: string): Promise<number>;
  createSession(ownerId: string, title?: string): Promise<SessionSummary>;
  /** The session if `ownerId` owns it; `not_found` otherwise (the owner-only paths: the sweeper, a share link's owner; a person's door is `server/members/chat-gate.ts`). */
  ownedSession(ownerId: string, sessionId: string): Promise<SessionSummary>;
  renameSession(ownerId: string, sessionId: string, title: string): Promise<SessionSummary>;
  /** Removes a session and everything stored under it. */
  deleteSession(ownerId: string, sessionId: string): Promise<void>;
  /** A chat's own settings: the model key it runs on and its instructions, each absent when never set (session already checked). */
  chatSettings(sessionId: string): Promise<StoredChatSettings>;
  /** Sets the fields given (instructions "" removes them) on `ownerId`'s chat; `not_found` otherwise. */
  setChatSettings(ownerId: string, sessionId: string, settings: StoredChatSettings): Promise<void>;
  /** The model key `ownerId` picked last: what their chats without a choice run on. */
  defaultModel(ownerId: string): Promise<string | undefined>;
  setDefaultModel(ownerId: string, model: string): Promise<void>;
  /** Marks activity (and sets a new title) so the sidebar sorts the session first. */
  touchSession(sessionId: string, title?: string): Promise<void>;
  /** Reserves `count` sequence numbers; returns the first number of the block. */
  reserveSeqBlock(sessionId: string, count: number): Promise<number>;
  /** `turnIds`: only these (a branch). */
  loadHistory(sessionId: string, turnIds?: readonly string[]): Promise<ChatTurn[]>;
  /** Every turn's link to the one it follows, in start order (the branch tree). */
  loadTurnLinks(sessionId: string): Promise<TurnLink[]>;
  /** The turn last viewed or started (the chat opens on its branch); undefined: none recorded. */
  activeTurn(sessionId: string): Promise<string | undefined>;
  setActiveTurn(sessionId: string, turnId: string): Promise<void>;
  /** How many turns a session has stored (an import checks they all landed without reading them back). */
  countTurns(sessionId: string): Promise<number>;
  /**
   * The `limit` turns before the turn `before` (the newest without it), of the branch
   * `path` (its turn ids, oldest first) when given; `older` is the next cursor, null at the first turn.
   */
  loadHistoryPage(
    sessionId: string,
    limit: number,
    before?: string,
    path?: readonly string[],
  ): Promise<{ turns: ChatTurn[]; older: string | null }>;
  /** The whole text of one tool call's output ("Show all"), for a session already checked. */
  loadToolOutput(sessionId: string, callId: string, where?: { turnId?: string; runId?: string | null }): Promise<string>;
  /** The writer of one session's events, in event order, retrying while the database is away. */
  eventWriter(options: Omit<EventStoreOptions, "models">): EventStore;
  /** The writer of one session's model-call records (the audit record of every model request). */
  modelCallLog(options: Omit<ModelCallLogOptions, "models">): ModelCallLog;
  /** One turn's model calls without their messages, in the order they started (session already checked). */
  listModelCalls(sessionId: string, turnId: string): Promise<ModelCallSummary[]>;
  /** One model call whole; `not_found` when the session has no such call (session already checked). */
  loadModelCall(sessionId: string, callId: string): Promise<ModelCallRecord>;
  /** Every model call of one turn whole, messages included (export). */
  loadTurnModelCalls(sessionId: string, turnId: string): Promise<ModelCallRecord[]>;
  /** One page of the sidebar: `ownerId`'s chats after `before`, newest activity first. */
  listSessionPage(ownerId: string, limit: number, before?: SessionCursor): Promise<SessionPage>;
  /** Full-text search over `ownerId`'s chats: titles, prompts, answers, and subagents' results when asked. */
  searchSessions(ownerId: string, query: string, subagents?: boolean): Promise<SearchResults>;
  /** Writes the search entries of turns of one chat (a turn started or ended; an import). */
  indexTurns(sessionId: string, turns: readonly ChatTurn[]): Promise<void>;
  /** Search skips every turn of the chat but those of `path`, the branch in view. */
  markBranchInView(sessionId: string, path: readonly string[]): Promise<void>;
  /** Indexes chats stored before search existed; returns how many. */
  backfillSearch(): Promise<number>;
  /**
   * Writes one ended turn whole in place of what is stored of it (scale-out: a dead
   * process's turn, rebuilt from the chat's event stream, holds text its writer never
   * flushed). Full tool outputs already stored are kept.
   */
  rewriteTurn(sessionId: string, turn: ChatTurn): Promise<void>;
  /**
   * At start, nothing can still be running: marks what a dead process left running as ended.
   * Scale-out: `scope` narrows it to one turn whose lease expired, or leaves out
   * the chats whose turns live processes still hold.
   */
  ghostSweep(now?: Date, scope?: GhostSweepScope): Promise<{ turns: number; runs: number; calls: number }>;
  /** The files attached to chats (docs/attachments.md); a chat's go when it is deleted. */
  readonly attachments: AttachmentStore;
  /** Who else may open each chat, and as what (docs/members.md). */
  readonly members: MemberStore;
}

export interface StoredChatSettings {
  model?: string;
  instructions?: string;
}

export type GhostSweepScope = { sessionId: string; turnId: string } | { exceptSessions: string[] };

export const DEFAULT_TITLE = "New chat";
export { GHOST_TURN_ERROR } from "@/lib/turn/ghost-sweep";
export const GHOST_APPROVAL_NOTE = GHOST_RUNS_END.note;

function notFound(): AppError {
  return new AppError("not_found", "That chat does not exist.");
}

/** `attachmentLimits`: ATTACHMENT_MAX_BYTES and ATTACHMENTS_MAX_CHAT_BYTES unless given. */
export function mongoStore(models: Models, options: { attachmentLimits?: AttachmentLimits } = {}): ChatStore {
  const { Session, Turn, ToolCall, ToolOutput, SubagentRun, TextChunk, ModelCall, ModelBlob } = models;
  const attachments = new AttachmentStore(models, options.attachmentLimits);
  return {
    attachments,
    members: new MemberStore(models),

    async listSessions(ownerId) {
      const rows = await Session.find({ ownerId }, SUMMARY_FIELDS).sort({ updatedAt: -1 }).limit(500).lean<SessionRow[]>();
      return rows.map(toSummary);
    },

    countSessions: (ownerId) => Session.countDocuments({ ownerId }),

    async createSession(ownerId, title = DEFAULT_TITLE) {
      const doc = await Session.create({ _id: newId(), ownerId, title, titleTerms: termsOf(title), searchIndexed: true });
      return toSummary(doc.toObject() as SessionRow);
    },

    async ownedSession(ownerId, sessionId) {
      const row = await Session.findOne({ _id: sessionId, ownerId }, SUMMARY_FIELDS).lean<SessionRow>();
      if (!row) throw notFound();
      return toSummary(row);
    },

    async renameSession(ownerId, sessionId, title) {
      const row = await Session.findOneAndUpdate(
        { _id: sessionId, ownerId },
        { $set: { title, titleTerms: termsOf(title) } },
        // The whole row, unprojected: it is small, and FerretDB has no projection on findAndModify.
        { returnDocument: "after" },
      ).lean<SessionRow>();
      if (!row) throw notFound();
      return toSummary(row);
    },

    async chatSettings(sessionId) {
      const row = await Session.findById(sessionId, { model: 1, instructions: 1 }).lean<StoredChatSettings>();
      return { ...(row?.model ? { model: row.model } : {}), ...(row?.instructions ? { instructions: row.instructions } : {}) };
    },

    async setChatSettings(ownerId, sessionId, settings) {
      const set: Record<string, string> = {};
      const unset: Record<string, ""> = {};
      if (settings.model !== undefined) set.model = settings.model;
      if (settings.instructions !== undefined) {
        if (settings.instructions) set.instructions = settings.instructions;
        else unset.instructions = "";
      }
      // `timestamps: false`: a setting is not activity, the sidebar keeps its order.
      const result = await Session.updateOne(
        { _id: sessionId, ownerId },
        { ...(Object.keys(set).length ? { $set: set } : {}), ...(Object.keys(unset).length ? { $unset: unset } : {}) },
        { timestamps: false },
      );
      if (result.matchedCount === 0) throw notFound();
    },

    async defaultModel(ownerId) {
      const row = await models.PersonSettings.findById(ownerId, { model: 1 }).lean<{ model?: string }>();
      return row?.model ?? undefined;
    },

    async setDefaultModel(ownerId, model) {
      await models.PersonSettings.updateOne({ _id: ownerId }, { $set: { model } }, { upsert: true });
    },

    async rewriteTurn(sessionId, turn) {
      const { turnId } = turn;
      const textIds = new RegExp(`^${turnId.replace(/[^A-Za-z0-9_-]/g, "\\$&")}:`);
      await Promise.all([
        Turn.deleteOne({ _id: turnId, sessionId }),
        SubagentRun.deleteMany({ sessionId, turnId }),
        ToolCall.deleteMany({ sessionId, turnId }),
        TextChunk.deleteMany({ sessionId, textId: textIds }),
      ]);
      // Each event is handed the whole turn: what it writes is the turn's, as it ended.
      const writer = new EventStore({ models, sessionId });
      for (const event of eventsOfTurn(turn)) writer.record(event, turn);
      await writer.drain([turn]);
    },

    async deleteSession(ownerId, sessionId) {
      const removed = await Session.deleteOne({ _id: sessionId, ownerId });
      if (removed.deletedCount === 0) throw notFound();
      await Promise.all([
        ...[Turn, ToolCall, SubagentRun, ToolOutput, TextChunk, ModelCall, ModelBlob, models.SearchEntry].map((model) =>
          (model as typeof Turn).deleteMany({ sessionId }),
        ),
        attachments.deleteForSession(sessionId),
      ]);
    },

    async touchSession(sessionId, title) {
      // A title from the first prompt only replaces the default: a person's rename that
      // landed first (the two writes race) is kept.
      await Session.updateOne(
        title ? { _id: sessionId, title: DEFAULT_TITLE } : { _id: sessionId },
        title ? { $set: { title, titleTerms: termsOf(title) } } : { $set: { updatedAt: new Date() } },
      );
    },

    async reserveSeqBlock(sessionId, count) {
      const row = await Session.findOneAndUpdate(
        { _id: sessionId },
        { $inc: { seqReserved: count } },
        // Unprojected, as in renameSession.
        { returnDocument: "after" },
      ).lean<{ seqReserved: number }>();
      if (!row) throw notFound();
      return row.seqReserved - count;
    },

    loadHistory: (sessionId, turnIds) => loadHistory(models, sessionId, turnIds),
    loadTurnLinks: (sessionId) => loadTurnLinks(models, sessionId),
    async activeTurn(sessionId) {
      const row = await Session.findById(sessionId, { activeTurnId: 1 }).lean<{ activeTurnId?: string }>();
      return row?.activeTurnId ?? undefined;
    },
    async setActiveTurn(sessionId, turnId) {
      // Not activity: the sidebar keeps its order when a person only looks at another branch.
      await Session.updateOne({ _id: sessionId }, { $set: { activeTurnId: turnId } }, { timestamps: false });
    },
    countTurns: (sessionId) => Turn.countDocuments({ sessionId }),
    loadHistoryPage: (sessionId, limit, before, path) => loadHistoryPage(models, sessionId, limit, before, path),

    async loadToolOutput(sessionId, callId, where = {}) {
      // Call ids come from models and repeat across runs (two subagents may both say
      // "call_1"), so the turn and run pin the call down; without them the newest match is used.
      const filter =
        where.turnId !== undefined
          ? { _id: toolCallRecordId(where.turnId, where.runId ?? null, callId), sessionId }
          : { sessionId, callId };
      const call = await ToolCall.findOne(filter, { response: 1, responseSize: 1 })
        .sort({ _id: -1 })
        .lean<{ _id: string; response: string; responseSize: number }>();
      if (!call) throw new AppError("not_found", "That tool call does not exist.");
      if (call.response.length >= call.responseSize) return call.response;
      const chunks = await ToolOutput.find({ toolCallId: call._id }, { data: 1, n: 1 }).sort({ n: 1 }).lean<{ data: string }[]>();
      return chunks.map((c) => c.data).join("");
    },

    listSessionPage: (ownerId, limit, before) => listSessionPage(models, ownerId, limit, before),
    searchSessions: (ownerId, query, subagents) => searchSessions(models, ownerId, query, subagents),
    indexTurns: (sessionId, turns) => indexTurns(models, sessionId, turns),
    markBranchInView: (sessionId, path) => markBranchInView(models, sessionId, path),
    backfillSearch: () => backfillSearch(models),

    eventWriter: (options) => new EventStore({ ...options, models }),

    modelCallLog: (options) => new ModelCallLog({ ...options, models }),
    listModelCalls: (sessionId, turnId) => listModelCalls(models, sessionId, turnId),
    loadTurnModelCalls: (sessionId, turnId) => loadTurnModelCalls(models, sessionId, turnId),
    async loadModelCall(sessionId, callId) {
      const record = await loadModelCall(models, sessionId, callId);
      if (!record) throw new AppError("not_found", "That model call is not in this chat.");
      return record;
    },

    async ghostSweep(now = new Date(), scope) {
      const where: Record<string, unknown> = !scope
        ? {}
        : "turnId" in scope
          ? { sessionId: scope.sessionId, turnId: scope.turnId }
          : { sessionId: { $nin: scope.exceptSessions } };
      const turnWhere: Record<string, unknown> = scope && "turnId" in scope ? { _id: scope.turnId, sessionId: scope.sessionId } : where;
      // endRunning (lib/turn/reduce.ts) with GHOST_RUNS_END, as bulk updates: after a restart no fold holds these turns.
      const runs = await SubagentRun.updateMany(
        { ...where, status: "running" },
        { $set: { status: "error", endReason: GHOST_RUNS_END.endReason, error: GHOST_RUNS_END.error, endedAt: now } },
      );
      // Before the calls: a waiting approval ends unanswered and says why.
      await ToolCall.updateMany(
        { ...where, "approval.state": "pending" },
        { $set: { "approval.state": "cancelled", "approval.decidedAt": now.toISOString(), "approval.note": GHOST_RUNS_END.note } },
      );
      // And a question still waiting, like endRunning's: few calls ever ask, so each is rewritten whole.
      const asking = await ToolCall.find({ ...where, "inputs.state": "pending" }, { inputs: 1 }).lean();
      for (const row of asking) {
        const inputs = endPendingInputs(row.inputs as InputRequest[], now.toISOString(), GHOST_RUNS_END.note);
        await ToolCall.updateOne({ _id: row._id }, { $set: { inputs } });
      }
      const calls = await ToolCall.updateMany({ ...where, status: "running" }, { $set: { status: "cancelled" } });
      const turns = await Turn.updateMany(
        { ...turnWhere, status: "running" },
        { $set: { status: "failed", error: GHOST_TURN_ERROR, endedAt: now } },
      );
      return { turns: turns.modifiedCount, runs: runs.modifiedCount, calls: calls.modifiedCount };
    },
  };
}
