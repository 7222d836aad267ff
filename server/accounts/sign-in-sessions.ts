import { AppError, type SignInSessionView } from "@/lib/contracts";
import type { Models } from "@/models";
import type { AccountRecord, SignInSessionRecord } from "@/models/account";
import { expiringRows, type ExpiringRows } from "@/server/db/expiry-index";
import { newPublicId, newToken, TOKEN_PATTERN, tokenDigest } from "./tokens";

/**
 * Server-side sign-in sessions: the browser holds a random token (the `dlg_session`
 * cookie), the database its SHA-256 and everything else. Revoking is deleting, so the next
 * request or handshake with that cookie fails at once; the sockets it opened are cut
 * through `cutSockets`. Expired rows leave through `expiringRows` (a TTL index, or a sweep
 * on each sign-in where the server has none); until then they are refused on read.
 */
export const SESSION_TTL_MS = 30 * 24 * 3600_000;
/** A sliding expiry is written at most this often per session (not on every request). */
const SLIDE_EVERY_MS = 60_000;
const USER_AGENT_MAX = 200;
const LIST_MAX = 200;

/** A signed-in request: the account and the sign-in session its cookie names. */
export interface Authenticated {
  account: AccountRecord;
  /** The session's public id (what sockets carry and revocation names). */
  signInSessionId: string;
  /** The expiry moved forward on this request: the cookie should be sent again. */
  slid: boolean;
}

export type CutSockets = (target: { signInSessionId: string } | { accountId: string; except?: string }) => void;

export class SignInSessions {
  private readonly expiry: ExpiringRows;

  constructor(
    private readonly models: Pick<Models, "Account" | "SignInSession">,
    private readonly now: () => number,
    private readonly cutSockets: CutSockets,
  ) {
    this.expiry = expiringRows(models.SignInSession.collection, "expiresAt", now);
  }

  async authenticate(token: string | undefined): Promise<Authenticated | null> {
    if (!token || !TOKEN_PATTERN.test(token)) return null;
    const { SignInSession, Account } = this.models;
    const now = this.now();
    const session = await SignInSession.findById(tokenDigest(token)).lean<SignInSessionRecord>();
    if (!session || session.expiresAt.getTime() <= now) return null;
    const account = await Account.findById(session.accountId).lean<AccountRecord>();
    if (!account || account.disabled) return null;
    let slid = false;
    if (now - session.lastSeenAt.getTime() >= SLIDE_EVERY_MS) {
      slid = true;
      await SignInSession.updateOne({ _id: session._id }, { lastSeenAt: new Date(now), expiresAt: new Date(now + SESSION_TTL_MS) });
      await Account.updateOne({ _id: account._id }, { lastSeenAt: new Date(now) });
    }
    return { account, signInSessionId: session.publicId, slid };
  }

  /** A fresh session (and token) for a sign-in; the token is returned once and never stored. */
  async open(accountId: string, method: "password" | "sso", userAgent: string): Promise<string> {
    await this.expiry.sweep();
    const token = newToken();
    const now = new Date(this.now());
    await this.models.SignInSession.create({
      _id: tokenDigest(token),
      publicId: newPublicId(),
      accountId,
      method,
      createdAt: now,
      lastSeenAt: now,
      expiresAt: new Date(now.getTime() + SESSION_TTL_MS),
      userAgent: userAgent.slice(0, USER_AGENT_MAX),
    });
    await this.models.Account.updateOne({ _id: accountId }, { lastSeenAt: now });
    return token;
  }

  async revokeToken(token: string | undefined): Promise<void> {
    if (!token || !TOKEN_PATTERN.test(token)) return;
    const session = await this.models.SignInSession.findOneAndDelete({ _id: tokenDigest(token) }).lean<SignInSessionRecord>();
    if (session) this.cutSockets({ signInSessionId: session.publicId });
  }

  async end(accountId: string, except?: string): Promise<void> {
    await this.models.SignInSession.deleteMany(except ? { accountId, publicId: { $ne: except } } : { accountId });
    this.cutSockets({ accountId, except });
  }

  async list(accountId: string, currentId: string): Promise<SignInSessionView[]> {
    const rows = await this.models.SignInSession.find({ accountId }).sort({ lastSeenAt: -1 }).limit(LIST_MAX).lean<SignInSessionRecord[]>();
    return rows
      .filter((s) => s.expiresAt.getTime() > this.now())
      .map((s) => ({
        id: s.publicId,
        createdAt: s.createdAt.toISOString(),
        lastSeenAt: s.lastSeenAt.toISOString(),
        userAgent: s.userAgent,
        method: s.method,
        current: s.publicId === currentId,
      }));
  }

  async revoke(accountId: string, publicId: string): Promise<void> {
    const gone = await this.models.SignInSession.findOneAndDelete({ accountId, publicId }).lean<SignInSessionRecord>();
    if (!gone) throw new AppError("not_found", "That sign-in session does not exist (it may have ended already).");
    this.cutSockets({ signInSessionId: publicId });
  }
}
