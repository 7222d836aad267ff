import { AppError, MAX_MEMBERS, type ChatPerson, type ChatRole, type MemberRole, type SessionSummary } from "@/lib/contracts";
import type { Models } from "@/models";
import { SESSION_SUMMARY_FIELDS, toSummary, type SessionRow } from "@/server/data/session-row";

/** A chat as one person may open it: what they see of it, whose it is, and their role in it. */
export interface ChatAccess {
  summary: SessionSummary;
  ownerId: string;
  role: ChatRole;
}

interface StoredMember {
  accountId: string;
  role: MemberRole;
  addedAt: Date;
}

type AccessRow = SessionRow & { ownerId: string; members?: StoredMember[] };

/**
 * A chat's members in MongoDB, on the chat's own document (`Session.members`): every
 * check reads it afresh, so a removal or a role change holds on every process at once.
 */
export class MemberStore {
  constructor(private readonly models: Pick<Models, "Session" | "Account">) {}

  /** `userId`'s role in the chat; `not_found` when they may not open it (it is answered like a chat that does not exist). */
  async access(userId: string, sessionId: string): Promise<ChatAccess> {
    const row = await this.models.Session.findOne(
      { _id: sessionId, $or: [{ ownerId: userId }, { "members.accountId": userId }] },
      { ...SESSION_SUMMARY_FIELDS, ownerId: 1, members: 1 },
    ).lean<AccessRow>();
    if (!row) throw new AppError("not_found", "That chat does not exist.");
    const role: ChatRole = row.ownerId === userId ? "owner" : (row.members?.find((m) => m.accountId === userId)?.role ?? "viewer");
    return { summary: toSummary(row), ownerId: row.ownerId, role };
  }

  /** The owner first, then the members in the order they were added, each with the name the app shows. */
  async people(sessionId: string): Promise<ChatPerson[]> {
    const row = await this.models.Session.findById(sessionId, { ownerId: 1, members: 1 }).lean<AccessRow>();
    if (!row) return [];
    const members = row.members ?? [];
    const names = await this.names([row.ownerId, ...members.map((m) => m.accountId)]);
    return [
      { accountId: row.ownerId, name: names.get(row.ownerId) ?? "the owner", role: "owner" },
      ...members.map((m) => ({ accountId: m.accountId, name: names.get(m.accountId) ?? "a former account", role: m.role })),
    ];
  }

  /** What the app calls each account: its display name, else its email. Unknown ids are left out. */
  async names(accountIds: readonly string[]): Promise<Map<string, string>> {
    const ids = [...new Set(accountIds)];
    if (ids.length === 0) return new Map();
    const rows = await this.models.Account.find({ _id: { $in: ids } }, { email: 1, displayName: 1 }).lean<
      { _id: string; email: string; displayName?: string }[]
    >();
    return new Map(rows.map((r) => [r._id, r.displayName?.trim() || r.email]));
  }

  /** The active account with this email, or `not_found` in words the owner can act on. */
  async accountByEmail(email: string): Promise<string> {
    const row = await this.models.Account.findOne({ email: email.toLowerCase(), disabled: { $ne: true } }, { _id: 1 }).lean<{
      _id: string;
    }>();
    if (!row) throw new AppError("not_found", `No account has the email ${email}: they need to sign up first.`);
    return row._id;
  }

  /** Adds `accountId` with `role`, or sets the role of a member already there. */
  async add(ownerId: string, sessionId: string, accountId: string, role: MemberRole): Promise<void> {
    if (accountId === ownerId) throw new AppError("bad_request", "You own this chat already.");
    const changed = await this.models.Session.updateOne(
      { _id: sessionId, ownerId, "members.accountId": accountId },
      { $set: { "members.$.role": role } },
      { timestamps: false },
    );
    if (changed.matchedCount > 0) return;
    // One update whose filter holds the cap: two adds racing cannot pass it together.
    const added = await this.models.Session.updateOne(
      { _id: sessionId, ownerId, "members.accountId": { $ne: accountId }, [`members.${MAX_MEMBERS - 1}`]: { $exists: false } },
      { $push: { members: { accountId, role, addedAt: new Date() } } },
      { timestamps: false },
    );
    if (added.matchedCount > 0) return;
    const row = await this.models.Session.findOne({ _id: sessionId, ownerId }, { members: 1 }).lean<AccessRow>();
    if (!row) throw new AppError("not_found", "That chat does not exist.");
    if (row.members?.some((m) => m.accountId === accountId)) return this.add(ownerId, sessionId, accountId, role);
    throw new AppError("limit_reached", `A chat may have at most ${MAX_MEMBERS} members.`);
  }

  async setRole(ownerId: string, sessionId: string, accountId: string, role: MemberRole): Promise<void> {
    const changed = await this.models.Session.updateOne(
      { _id: sessionId, ownerId, "members.accountId": accountId },
      { $set: { "members.$.role": role } },
      { timestamps: false },
    );
    if (changed.matchedCount === 0) throw new AppError("not_found", "That person is not a member of this chat.");
  }

  async remove(ownerId: string, sessionId: string, accountId: string): Promise<void> {
    const removed = await this.models.Session.updateOne(
      { _id: sessionId, ownerId, "members.accountId": accountId },
      { $pull: { members: { accountId } } },
      { timestamps: false },
    );
    if (removed.matchedCount === 0) throw new AppError("not_found", "That person is not a member of this chat.");
  }

  /** Account ids by what they may do in the chat: the owner and collaborators act, everyone sees. */
  async ids(sessionId: string, who: "act" | "see"): Promise<string[]> {
    const row = await this.models.Session.findById(sessionId, { ownerId: 1, members: 1 }).lean<AccessRow>();
    if (!row) return [];
    const members = (row.members ?? []).filter((m) => who === "see" || m.role === "collaborator");
    return [row.ownerId, ...members.map((m) => m.accountId)];
  }

  /** The ids of the chats shared with `userId` (members' search reads them; few per person). */
  async sharedWith(userId: string): Promise<string[]> {
    const rows = await this.models.Session.find({ "members.accountId": userId }, { _id: 1 }).limit(1000).lean<{ _id: string }[]>();
    return rows.map((r) => r._id);
  }
}
