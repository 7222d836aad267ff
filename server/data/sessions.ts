import { AppError, type SessionSummary } from "@/lib/contracts";
import { SessionModel } from "@/models/session";
import { newId } from "./ids";

export const DEFAULT_TITLE = "New chat";

interface SessionRow {
  _id: string;
  title: string;
  createdAt: Date;
  updatedAt: Date;
}

function toSummary(row: SessionRow): SessionSummary {
  return {
    sessionId: row._id,
    title: row.title,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

const SUMMARY_FIELDS = { title: 1, createdAt: 1, updatedAt: 1 } as const;

/**
 * Every lookup filters by owner: a session that is someone else's is reported exactly
 * like one that does not exist, so ids cannot be probed.
 */
function notFound(): AppError {
  return new AppError("not_found", "That chat does not exist.");
}

export async function listSessions(ownerId: string): Promise<SessionSummary[]> {
  const rows = await SessionModel.find({ ownerId }, SUMMARY_FIELDS).sort({ updatedAt: -1 }).limit(500).lean<SessionRow[]>();
  return rows.map(toSummary);
}

export async function createSession(ownerId: string, title = DEFAULT_TITLE): Promise<SessionSummary> {
  const doc = await SessionModel.create({ _id: newId(), ownerId, title });
  return toSummary(doc.toObject() as SessionRow);
}

export async function getOwnedSession(ownerId: string, sessionId: string): Promise<SessionSummary> {
  const row = await SessionModel.findOne({ _id: sessionId, ownerId }, SUMMARY_FIELDS).lean<SessionRow>();
  if (!row) throw notFound();
  return toSummary(row);
}

export async function renameSession(ownerId: string, sessionId: string, title: string): Promise<SessionSummary> {
  const row = await SessionModel.findOneAndUpdate({ _id: sessionId, ownerId }, { $set: { title } }, { returnDocument: "after", projection: SUMMARY_FIELDS }).lean<SessionRow>();
  if (!row) throw notFound();
  return toSummary(row);
}

/** Marks activity so the sidebar sorts the session first. */
export async function touchSession(sessionId: string, title?: string): Promise<void> {
  await SessionModel.updateOne({ _id: sessionId }, title ? { $set: { title } } : { $set: { updatedAt: new Date() } });
}

/** Reserves `count` sequence numbers; returns the first number of the block. */
export async function reserveSeqBlock(sessionId: string, count: number): Promise<number> {
  const row = await SessionModel.findOneAndUpdate({ _id: sessionId }, { $inc: { seqReserved: count } }, { returnDocument: "after", projection: { seqReserved: 1 } }).lean<{ seqReserved: number }>();
  if (!row) throw notFound();
  return row.seqReserved - count;
}
