import {
  AppError,
  type AccountView,
  type AdminAccountView,
  type AuthMode,
  type AuthState,
  type ChangePasswordBody,
  type ClaimResult,
  type OneTimeLink,
  type QuotaView,
  type ResetBody,
  type SignInBody,
  type SignInSessionView,
  type SignUpBody,
} from "@/lib/contracts";
import { ACCOUNT_PAGES } from "@/lib/contracts/account";
import type { setQuotaBody } from "@/lib/contracts/quota";
import type { z } from "zod";
import type { Logger } from "@/lib/log";
import type { Models } from "@/models";
import { isDuplicateKey } from "@/server/errors";
import type { AccountRecord, OneTimeLinkRecord } from "@/models/account";
import type { LoginThrottle } from "./login-throttle";
import { hashPassword, verifyAgainstDummy, verifyPassword } from "./password";
import { SignInSessions, type Authenticated } from "./sign-in-sessions";
import { linkView, oneTimeLinks, type OneTimeLinks } from "./links";
import { sumUsage, type ChatUsageRow, type TurnUsageRow } from "./usage";
import { newAccountId, TOKEN_PATTERN } from "./tokens";
import type { VerifiedIdentity } from "./oidc";
import type { AccountQuotas } from "@/server/budgets/account-quotas";
import { settingOfBody } from "@/lib/budgets/quota-setting";

export { SESSION_TTL_MS, type Authenticated } from "./sign-in-sessions";

/**
 * Everything accounts do, behind one door like the session service: sign-up,
 * sign-in (password and SSO), sign-in sessions, password change and reset, claiming a
 * browser's chats from before accounts, invitations and the admin's work. It knows
 * nothing of HTTP: the routes (server/http/account-routes.ts) parse and answer; the app
 * gives it the hooks that reach sockets and running turns.
 */

/** What the SSO module hands over once the provider's answer is checked (one definition, there). */
export type { VerifiedIdentity };

type SetQuotaInput = z.output<typeof setQuotaBody>;

export interface RequestMeta {
  userAgent: string;
  address: string;
}

/** The one answer to every failed sign-in, whatever was wrong. */
export const SIGN_IN_FAILED = "That email and password do not match an account.";
/** The one answer to an invitation or reset token that is unknown, used, revoked or expired. */
export const LINK_INVALID = "That link is not valid any more: it may have been used, revoked or expired. Ask an admin for a new one.";
/** Invite mode, to a sign-up without an invitation once the first account exists. */
export const INVITATION_NEEDED = "This server is by invitation only: ask an admin for an invitation.";
/** A sign-up that raced another for the same email and lost. */
export const EMAIL_TAKEN = "An account with this email exists: sign in instead.";

const RESET_TTL_MS = 24 * 3600_000;
/** Admin listings are bounded; an instance with more accounts than this is not this design's target. */
const LIST_MAX = 1000;

/** A refused attempt, with how long to wait (the Retry-After header). */
export class ThrottledError extends AppError {
  constructor(readonly retryAfterS: number) {
    super("rate_limited", `Too many attempts. Try again in ${retryAfterS} s.`);
  }
}

export interface AccountServiceDeps {
  mode: AuthMode;
  models: Pick<Models, "Account" | "SignInSession" | "OneTimeLink" | "Session" | "Turn"> & Partial<Pick<Models, "SearchEntry">>;
  /** Guesses per address and per email (sign-in, sign-up with a taken email, password change). */
  throttle: LoginThrottle;
  /** New accounts and reset attempts per address. */
  creationThrottle: LoginThrottle;
  /** Deletes one chat through the session service's own path (stops its turn, removes its data). */
  deleteChat(ownerId: string, sessionId: string): Promise<void>;
  /** Cancels every running turn of this owner. */
  cancelTurns(ownerId: string): void;
  /** Disconnects the sockets of one sign-in session, or of an account (but one of its sessions). */
  cutSockets(target: { signInSessionId: string } | { accountId: string; except?: string }): void;
  /** Every tab of this person should refresh its chat list. */
  onSessionsChanged(userId: string): void;
  /** The SSO button, when configured (the SSO module sets it). */
  sso?: { label: string } | null;
  /** Each account's quota and spend (server/budgets/account-quotas.ts); absent: no quotas shown or set. */
  quotas?: AccountQuotas;
  log?: Pick<Logger, "info" | "warn">;
  now?: () => number;
}

export class AccountService {
  private readonly now: () => number;
  private warnedFirstInvite = false;
  private readonly links: OneTimeLinks;
  private readonly sessions: SignInSessions;

  constructor(private readonly deps: AccountServiceDeps) {
    this.now = deps.now ?? Date.now;
    this.links = oneTimeLinks(deps.models.OneTimeLink, this.now);
    this.sessions = new SignInSessions(deps.models, this.now, deps.cutSockets);
  }

  get mode(): AuthMode {
    return this.deps.mode;
  }

  // ── Sign-in sessions (see sign-in-sessions.ts) ──────────────────────────────────────

  /** The account and session a `dlg_session` cookie stands for, or null (missing, unknown, expired, revoked, disabled). */
  authenticate(token: string | undefined): Promise<Authenticated | null> {
    return this.sessions.authenticate(token);
  }

  /** Revokes the session a token names (a token planted before a sign-in, or a sign-out) and cuts its sockets. */
  revokeToken(token: string | undefined): Promise<void> {
    return this.sessions.revokeToken(token);
  }

  signOut(token: string | undefined): Promise<void> {
    return this.sessions.revokeToken(token);
  }

  /** Ends every session of the account (or every other one) and cuts their sockets. */
  endSessions(accountId: string, except?: string): Promise<void> {
    return this.sessions.end(accountId, except);
  }

  listSessions(auth: Authenticated): Promise<SignInSessionView[]> {
    return this.sessions.list(auth.account._id, auth.signInSessionId);
  }

  revokeSession(auth: Authenticated, publicId: string): Promise<void> {
    return this.sessions.revoke(auth.account._id, publicId);
  }

  private openSession(accountId: string, method: "password" | "sso", meta: RequestMeta): Promise<string> {
    return this.sessions.open(accountId, method, meta.userAgent);
  }

  // ── Sign-up and sign-in ─────────────────────────────────────────────────────────────

  async state(auth: Authenticated | null, cookieIdentity: string | null): Promise<AuthState> {
    const mode = this.deps.mode;
    if (mode === "single") return { mode, account: null, signUpOpen: false, sso: null, claimable: 0 };
    return {
      mode,
      account: auth ? accountView(auth.account) : null,
      signUpOpen: mode === "open" || (mode === "invite" && !(await this.anyAccount())),
      sso: this.deps.sso ?? null,
      claimable: auth && cookieIdentity ? await this.claimable(auth.account, cookieIdentity) : 0,
    };
  }

  /** Checks a password; every failure is the same error after the same work. */
  async signIn(body: SignInBody, meta: RequestMeta): Promise<{ cookieValue: string }> {
    this.refuseIn("single", "sso");
    return this.throttled(meta, body.email, async () => {
      const account = await this.deps.models.Account.findOne({ email: body.email }).lean<AccountRecord>();
      if (!(await this.passwordMatches(account, body.password))) return null;
      return { cookieValue: await this.openSession(account!._id, "password", meta) };
    });
  }

  async signUp(body: SignUpBody, meta: RequestMeta): Promise<{ cookieValue: string; created: boolean }> {
    this.refuseIn("single", "sso");
    const creation = this.deps.creationThrottle.reserve(`address:${meta.address}`);
    if ("retryAfterMs" in creation) throw new ThrottledError(Math.ceil(creation.retryAfterMs / 1000));
    let created = false;
    try {
      const first = !(await this.anyAccount());
      let invite: OneTimeLinkRecord | null = null;
      if (this.deps.mode === "invite" && !first) {
        invite = body.invite && TOKEN_PATTERN.test(body.invite) ? await this.links.live("invite", body.invite) : null;
        if (!invite) throw new AppError("bad_request", body.invite ? LINK_INVALID : INVITATION_NEEDED);
      }
      if (this.deps.mode === "invite" && first && !this.warnedFirstInvite) {
        this.warnedFirstInvite = true;
        this.deps.log?.warn("Invite mode with no account yet: the first sign-up (without an invitation) becomes the admin");
      }
      // A taken email is a sign-in attempt: it says no more than a sign-in would.
      const result = await this.throttled(meta, body.email, async () => {
        const existing = await this.deps.models.Account.findOne({ email: body.email }).lean<AccountRecord>();
        if (existing) {
          if (!(await this.passwordMatches(existing, body.password))) return null;
          return { cookieValue: await this.openSession(existing._id, "password", meta), created: false };
        }
        const passwordHash = await hashPassword(body.password);
        const account = await this.createAccount(
          { email: body.email, displayName: body.displayName || nameFrom(body.email), passwordHash },
          // Not the first account (another sign-up may have just become it): invite mode wants an invitation.
          async () => {
            if (this.deps.mode !== "invite") return true;
            invite ??= body.invite && TOKEN_PATTERN.test(body.invite) ? await this.links.live("invite", body.invite) : null;
            if (!invite) throw new AppError("bad_request", body.invite ? LINK_INVALID : INVITATION_NEEDED);
            if (!(await this.links.use(invite))) throw new AppError("bad_request", LINK_INVALID);
            return true;
          },
        );
        if (!account) throw new AppError("bad_request", INVITATION_NEEDED);
        created = true;
        return { cookieValue: await this.openSession(account._id, "password", meta), created: true };
      });
      return result;
    } finally {
      // Only accounts made count against the address's budget of new accounts.
      if (created) creation.failed();
      else creation.dropped();
    }
  }

  /** See the module interface in the issue: match by (issuer, subject), then by verified email, else create. */
  async signInWithSso(identity: VerifiedIdentity, meta: RequestMeta): Promise<{ cookieValue: string } | { refused: string }> {
    if (this.deps.mode === "single") return { refused: "Accounts are off on this server." };
    const { Account } = this.deps.models;
    const pair = { issuer: identity.issuer, subject: identity.subject };
    // Both fields of one element: the candidates by subject, then the one whose element also
    // has the issuer (FerretDB 1.x has no $elemMatch on subdocuments; few rows share a subject).
    const candidates = await Account.find({ "sso.subject": pair.subject }).lean<AccountRecord[]>();
    let account = candidates.find((a) => a.sso?.some((p) => p.issuer === pair.issuer && p.subject === pair.subject)) ?? null;
    const email = identity.email?.trim().toLowerCase() || null;
    if (!account && email) {
      const byEmail = await Account.findOne({ email }).lean<AccountRecord>();
      if (byEmail && !identity.emailVerified) {
        return {
          refused: "An account with this email exists, but your identity provider has not verified the address, so it cannot be linked.",
        };
      }
      if (byEmail) {
        await Account.updateOne({ _id: byEmail._id }, { $push: { sso: pair } });
        account = byEmail;
      }
    }
    if (!account) {
      if (!email) return { refused: "Your identity provider did not share an email address, which an account needs." };
      const mayCreate = this.deps.mode !== "invite" || !(await this.anyAccount());
      if (!mayCreate) return { refused: INVITATION_NEEDED };
      try {
        account = await this.createAccount(
          { email, displayName: identity.name?.trim().slice(0, 80) || nameFrom(email), passwordHash: null, sso: [pair] },
          async () => this.deps.mode !== "invite",
        );
      } catch (error) {
        if (error instanceof AppError && error.code === "conflict") return { refused: error.message };
        throw error;
      }
      if (!account) return { refused: INVITATION_NEEDED };
    }
    if (account.disabled) return { refused: "This account is disabled. Ask an admin." };
    return { cookieValue: await this.openSession(account._id, "sso", meta) };
  }

  async changePassword(auth: Authenticated, body: ChangePasswordBody, meta: RequestMeta): Promise<void> {
    const account = auth.account;
    if (!account.passwordHash) throw new AppError("bad_request", "This account signs in through SSO and has no password to change.");
    await this.throttled(
      meta,
      account.email,
      async () => {
        if (!(await verifyPassword(account.passwordHash!, body.current))) return null;
        return true;
      },
      "The current password is not right.",
    );
    await this.deps.models.Account.updateOne({ _id: account._id }, { passwordHash: await hashPassword(body.next) });
    await this.endSessions(account._id, auth.signInSessionId);
  }

  /** Sets a new password through an admin's one-time link, ends every session, and signs in afresh. */
  async resetPassword(body: ResetBody, meta: RequestMeta): Promise<{ cookieValue: string }> {
    this.refuseIn("single");
    const attempt = this.deps.creationThrottle.reserve(`reset:${meta.address}`);
    if ("retryAfterMs" in attempt) throw new ThrottledError(Math.ceil(attempt.retryAfterMs / 1000));
    const link = TOKEN_PATTERN.test(body.token) ? await this.links.live("reset", body.token) : null;
    const account = link?.accountId ? await this.deps.models.Account.findById(link.accountId).lean<AccountRecord>() : null;
    if (!link || !account || account.disabled) {
      attempt.failed();
      throw new AppError("bad_request", LINK_INVALID);
    }
    const passwordHash = await hashPassword(body.password);
    if (!(await this.links.use(link))) {
      attempt.failed();
      throw new AppError("bad_request", LINK_INVALID);
    }
    attempt.passed();
    await this.deps.models.Account.updateOne({ _id: account._id }, { passwordHash });
    await this.endSessions(account._id);
    return { cookieValue: await this.openSession(account._id, "password", meta) };
  }

  // ── Claiming a browser's chats from before accounts ─────────────────────────────────

  private async claimable(account: AccountRecord, cookieIdentity: string): Promise<number> {
    if (account.claimedFrom.includes(cookieIdentity)) return 0;
    return this.deps.models.Session.countDocuments({ ownerId: cookieIdentity });
  }

  /** Moves (accept) or leaves (decline) the chats of the browser's old identity; asked once either way. */
  async claim(auth: Authenticated, cookieIdentity: string | null, accept: boolean): Promise<ClaimResult> {
    const account = auth.account;
    if (!cookieIdentity || account.claimedFrom.includes(cookieIdentity)) return { claimed: 0 };
    // Recorded first: two tabs answering at once move the chats once.
    const marked = await this.deps.models.Account.updateOne(
      { _id: account._id, claimedFrom: { $ne: cookieIdentity } },
      { $push: { claimedFrom: cookieIdentity } },
    );
    if (marked.modifiedCount === 0 || !accept) return { claimed: 0 };
    const moved = await this.deps.models.Session.updateMany({ ownerId: cookieIdentity }, { ownerId: account._id });
    // Search entries carry their chat's owner, so they move with it.
    await this.deps.models.SearchEntry?.updateMany({ ownerId: cookieIdentity }, { ownerId: account._id });
    this.deps.onSessionsChanged(account._id);
    this.deps.onSessionsChanged(cookieIdentity);
    return { claimed: moved.modifiedCount };
  }

  // ── Invitations and admin ───────────────────────────────────────────────────────────

  async createInvite(admin: Authenticated, expiresInHours: number, origin: string): Promise<OneTimeLink> {
    this.requireAdmin(admin);
    return this.links.create(
      "invite",
      admin.account._id,
      null,
      expiresInHours * 3600_000,
      (token) => `${origin}${ACCOUNT_PAGES.invite(token)}`,
    );
  }

  async listInvites(admin: Authenticated): Promise<OneTimeLink[]> {
    this.requireAdmin(admin);
    const rows = await this.deps.models.OneTimeLink.find({ kind: "invite" })
      .sort({ createdAt: -1 })
      .limit(LIST_MAX)
      .lean<OneTimeLinkRecord[]>();
    return rows.map((r) => linkView(r));
  }

  async revokeInvite(admin: Authenticated, publicId: string): Promise<void> {
    this.requireAdmin(admin);
    const gone = await this.deps.models.OneTimeLink.deleteOne({ kind: "invite", publicId });
    if (gone.deletedCount === 0) throw new AppError("not_found", "That invitation does not exist (it may have been revoked already).");
  }

  async resetLink(admin: Authenticated, accountId: string, origin: string): Promise<OneTimeLink> {
    this.requireAdmin(admin);
    await this.target(accountId);
    // One live reset link per account: a new one replaces the last.
    await this.deps.models.OneTimeLink.deleteMany({ kind: "reset", accountId, usedAt: null });
    return this.links.create("reset", admin.account._id, accountId, RESET_TTL_MS, (token) => `${origin}${ACCOUNT_PAGES.reset(token)}`);
  }

  async listAccounts(admin: Authenticated): Promise<AdminAccountView[]> {
    this.requireAdmin(admin);
    const { Account, Session, Turn } = this.deps.models;
    const accounts = await Account.find({}).sort({ createdAt: 1 }).limit(LIST_MAX).lean<AccountRecord[]>();
    const ids = accounts.map((a) => a._id);
    const chats = await Session.find({ ownerId: { $in: ids } }, { _id: 1, ownerId: 1, updatedAt: 1 }).lean<ChatUsageRow[]>();
    const turns = await Turn.find({ sessionId: { $in: chats.map((c) => c._id) } }, { sessionId: 1, stats: 1, createdAt: 1 }).lean<
      TurnUsageRow[]
    >();
    const usage = sumUsage(ids, chats, turns, new Map(accounts.map((a) => [a._id, a.lastSeenAt ?? null])));
    const quotas = await this.deps.quotas?.views(new Map(accounts.map((a) => [a._id, a.quota])));
    return accounts.map((a) => {
      const quota = quotas?.get(a._id);
      return { ...accountView(a), disabled: a.disabled, usage: usage.get(a._id)!, ...(quota ? { quota } : {}) };
    });
  }

  /** Sets an account's own quota (or back to the default); it holds from the account's next turn, in every process. */
  async setQuota(admin: Authenticated, accountId: string, body: SetQuotaInput): Promise<QuotaView> {
    this.requireAdmin(admin);
    const quotas = this.deps.quotas;
    if (!quotas) throw new AppError("bad_request", "This server counts no quotas.");
    await this.target(accountId);
    await quotas.set(accountId, settingOfBody(body));
    return quotas.viewOf(accountId);
  }

  /** The signed-in account's own quota and spend; null where the server counts no quotas. */
  async ownQuota(auth: Authenticated): Promise<QuotaView | null> {
    return (await this.deps.quotas?.viewOf(auth.account._id)) ?? null;
  }

  /** Disabling ends its sessions, cuts its sockets and cancels its running turns. */
  async setDisabled(admin: Authenticated, accountId: string, disabled: boolean): Promise<void> {
    this.requireAdmin(admin);
    if (accountId === admin.account._id) throw new AppError("bad_request", "You cannot disable your own account.");
    await this.target(accountId);
    await this.deps.models.Account.updateOne({ _id: accountId }, { disabled });
    if (!disabled) return;
    await this.endSessions(accountId);
    this.deps.cancelTurns(accountId);
  }

  /** Removes the account, every chat of it (through the session service), its sessions and links. */
  async deleteAccount(admin: Authenticated, accountId: string): Promise<void> {
    this.requireAdmin(admin);
    if (accountId === admin.account._id) throw new AppError("bad_request", "You cannot delete your own account.");
    await this.target(accountId);
    // Disabled first, so nothing new starts while its chats are removed.
    await this.deps.models.Account.updateOne({ _id: accountId }, { disabled: true });
    await this.endSessions(accountId);
    this.deps.cancelTurns(accountId);
    const chats = await this.deps.models.Session.find({ ownerId: accountId }, { _id: 1 }).lean<{ _id: string }[]>();
    for (const chat of chats) {
      await this.deps.deleteChat(accountId, chat._id).catch((error: unknown) => {
        if (!(error instanceof AppError && error.code === "not_found")) throw error;
      });
    }
    await this.deps.models.OneTimeLink.deleteMany({ $or: [{ accountId }, { createdBy: accountId, kind: "invite" }] });
    await this.deps.models.Account.deleteOne({ _id: accountId });
  }

  // ── Helpers ─────────────────────────────────────────────────────────────────────────

  private refuseIn(...modes: AuthMode[]): void {
    if (!modes.includes(this.deps.mode)) return;
    throw new AppError(
      "bad_request",
      this.deps.mode === "single" ? "Accounts are off on this server (AUTH_MODE=single)." : "This server signs in through SSO only.",
    );
  }

  requireAdmin(auth: Authenticated): void {
    // A member is told what a stranger to the route is told.
    if (auth.account.role !== "admin") throw new AppError("not_found", "No such API route.");
  }

  private async target(accountId: string): Promise<AccountRecord> {
    const account = await this.deps.models.Account.findById(accountId).lean<AccountRecord>();
    if (!account) throw new AppError("not_found", "That account does not exist.");
    return account;
  }

  private async anyAccount(): Promise<boolean> {
    return (await this.deps.models.Account.exists({})) !== null;
  }

  /** Verifies against the account's hash, or against a dummy one (same work) when there is none to check. */
  private async passwordMatches(account: AccountRecord | null, password: string): Promise<boolean> {
    if (!account || !account.passwordHash || account.disabled) {
      await verifyAgainstDummy(password);
      return false;
    }
    return verifyPassword(account.passwordHash, password);
  }

  /**
   * Runs a password check under the throttle, per address and per email, reserved before
   * anything is hashed. `attempt` answers null for a failure, which becomes `failure`.
   */
  private async throttled<T>(meta: RequestMeta, email: string, attempt: () => Promise<T | null>, failure = SIGN_IN_FAILED): Promise<T> {
    const byAddress = this.deps.throttle.reserve(`address:${meta.address}`);
    if ("retryAfterMs" in byAddress) throw new ThrottledError(Math.ceil(byAddress.retryAfterMs / 1000));
    const byEmail = this.deps.throttle.reserve(`email:${email}`);
    if ("retryAfterMs" in byEmail) {
      byAddress.dropped();
      throw new ThrottledError(Math.ceil(byEmail.retryAfterMs / 1000));
    }
    let result: T | null;
    try {
      result = await attempt();
    } catch (error) {
      byAddress.dropped();
      byEmail.dropped();
      throw error;
    }
    if (result === null) {
      byAddress.failed();
      byEmail.failed();
      throw new AppError("unauthorized", failure);
    }
    byAddress.passed();
    byEmail.passed();
    return result;
  }

  /**
   * Creates an account. The first is the admin, and the database decides which is first,
   * whatever the number of processes: it carries the founder marker, which a unique index
   * allows once, so of first sign-ups sent at once one is stored and the others are
   * refused by the index. Those, like every later sign-up, become members only when
   * `mayJoin` says so (it throws or answers false otherwise: null). A duplicate email that
   * slipped past the caller's check is refused by the email's unique index: `conflict`.
   */
  private async createAccount(
    fields: { email: string; displayName: string; passwordHash: string | null; sso?: { issuer: string; subject: string }[] },
    mayJoin: () => Promise<boolean>,
  ): Promise<AccountRecord | null> {
    // Asked first for the accounts made before the marker existed: an old server's next sign-up is no founder.
    if (!(await this.anyAccount())) {
      const founder = await this.insertAccount(fields, true);
      if (founder) return founder;
    }
    if (!(await mayJoin())) return null;
    const member = await this.insertAccount(fields, false);
    if (!member) throw new AppError("conflict", EMAIL_TAKEN);
    return member;
  }

  /** Null when the founder marker is taken already; `conflict` when the email (or the SSO identity) is. */
  private async insertAccount(fields: Parameters<AccountService["createAccount"]>[0], founder: boolean): Promise<AccountRecord | null> {
    const { Account } = this.deps.models;
    const role = founder ? "admin" : "member";
    try {
      const created = await Account.create({
        _id: newAccountId(),
        ...fields,
        role,
        disabled: false,
        claimedFrom: [],
        ...(founder ? { founder: true } : {}),
      });
      this.deps.log?.info("account created", { accountId: created._id, role });
      return created.toObject() as AccountRecord;
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
      if (!founder || (await Account.exists({ email: fields.email }))) throw new AppError("conflict", EMAIL_TAKEN);
      return null;
    }
  }
}

export function accountView(account: AccountRecord): AccountView {
  return {
    id: account._id,
    email: account.email,
    displayName: account.displayName,
    role: account.role,
    hasPassword: Boolean(account.passwordHash),
    createdAt: new Date(account.createdAt).toISOString(),
  };
}

/** A display name when none is given: the part before the @. */
function nameFrom(email: string): string {
  return email.split("@")[0]!.slice(0, 80);
}
