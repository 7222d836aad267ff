import {
  AppError,
  SHARE_EXPIRY_MS,
  SHARE_ROUTES,
  type SessionSummary,
  type ShareCreate,
  type ShareCreated,
  type ShareLinkView,
} from "@/lib/contracts";
import type { Models } from "@/models";
import type { ShareLinkRecord } from "@/models/share-link";
import { newPublicId, newToken, TOKEN_PATTERN, tokenDigest } from "@/server/accounts/tokens";

/**
 * Read-only share links: create, list and revoke for the chat's owner (every method checks
 * ownership first, so a stranger's identity gets the chat's own `not_found`), and `resolve`
 * for a viewer's token. A token is 256 random bits shown once; only its SHA-256 is kept.
 * A revoked, expired or malformed token, and a link whose chat is gone, all answer the
 * same `not_found`, so a viewer cannot tell them apart.
 */
export interface ShareServiceDeps {
  model: Models["ShareLink"];
  /** The one ownership check (ChatStore.ownedSession): `not_found` unless `ownerId` owns it. */
  ownedSession(ownerId: string, sessionId: string): Promise<SessionSummary>;
  /** A link stopped working: its open viewers are told why and cut off. */
  onEnded(linkId: string, reason: "revoked" | "expired" | "deleted"): void;
  /**
   * Whether the owner's account is disabled (account modes); absent: owners are cookie
   * identities, which cannot be. Asked on every resolve, so disabling an account stops its
   * links at the next request or connection, on every process.
   */
  ownerDisabled?(ownerId: string): Promise<boolean>;
  now?: () => Date;
  /** Live links one chat may have at once. */
  maxLinksPerChat?: number;
}

/** What a viewer's token opens. */
export interface ResolvedShare {
  linkId: string;
  sessionId: string;
  ownerId: string;
  title: string;
  inspector: boolean;
  public: boolean;
  names: boolean;
  expiresAt: Date | null;
}

export const SHARE_NOT_FOUND = "This share link does not exist, was revoked or has expired.";
const DEFAULT_MAX_LINKS = 50;

export class ShareService {
  constructor(private readonly deps: ShareServiceDeps) {}

  private now(): Date {
    return this.deps.now?.() ?? new Date();
  }

  async create(ownerId: string, sessionId: string, input: ShareCreate): Promise<ShareCreated> {
    await this.deps.ownedSession(ownerId, sessionId);
    const max = this.deps.maxLinksPerChat ?? DEFAULT_MAX_LINKS;
    if ((await this.deps.model.countDocuments(this.liveFilter({ sessionId }))) >= max) {
      throw new AppError("limit_reached", `This chat has ${max} share links already; revoke some first.`);
    }
    const token = newToken();
    const createdAt = this.now();
    const ttl = SHARE_EXPIRY_MS[input.expiresIn];
    const record = {
      _id: tokenDigest(token),
      linkId: newPublicId(),
      sessionId,
      ownerId,
      createdAt,
      expiresAt: ttl === null ? null : new Date(createdAt.getTime() + ttl),
      revokedAt: null,
      inspector: input.inspector,
      public: input.public,
      names: input.names,
    };
    await this.deps.model.create(record);
    return { link: toView(record), path: SHARE_ROUTES.page(token) };
  }

  /** The chat's links that still work, newest first. */
  async list(ownerId: string, sessionId: string): Promise<ShareLinkView[]> {
    await this.deps.ownedSession(ownerId, sessionId);
    const rows = await this.deps.model.find(this.liveFilter({ sessionId })).sort({ createdAt: -1 }).limit(200).lean<ShareLinkRecord[]>();
    return rows.map(toView);
  }

  /** Ends a link at once, for its open viewers too. */
  async revoke(ownerId: string, sessionId: string, linkId: string): Promise<void> {
    await this.deps.ownedSession(ownerId, sessionId);
    const done = await this.deps.model.updateOne({ linkId, sessionId, ownerId, revokedAt: null }, { $set: { revokedAt: this.now() } });
    if (done.matchedCount === 0) throw new AppError("not_found", "That share link does not exist.");
    this.deps.onEnded(linkId, "revoked");
  }

  /** The chat was deleted: its links go with it, and their viewers are cut off. */
  async deleteForSession(sessionId: string): Promise<void> {
    const rows = await this.deps.model.find({ sessionId }, { linkId: 1 }).lean<{ linkId: string }[]>();
    await this.deps.model.deleteMany({ sessionId });
    for (const row of rows) this.deps.onEnded(row.linkId, "deleted");
  }

  /** What a token opens; `not_found` for anything that does not work (see the class comment). */
  async resolve(token: unknown): Promise<ResolvedShare> {
    if (typeof token !== "string" || !TOKEN_PATTERN.test(token)) throw notFound();
    const row = await this.deps.model.findOne({ _id: tokenDigest(token) }).lean<ShareLinkRecord>();
    if (!row || row.revokedAt || (row.expiresAt && row.expiresAt.getTime() <= this.now().getTime())) throw notFound();
    if (await this.deps.ownerDisabled?.(row.ownerId)) throw notFound();
    let chat: SessionSummary;
    try {
      chat = await this.deps.ownedSession(row.ownerId, row.sessionId);
    } catch (error) {
      if (error instanceof AppError && error.code === "not_found") throw notFound();
      throw error;
    }
    return {
      linkId: row.linkId,
      sessionId: row.sessionId,
      ownerId: row.ownerId,
      title: chat.title,
      inspector: row.inspector,
      public: row.public,
      names: Boolean(row.names),
      expiresAt: row.expiresAt ?? null,
    };
  }

  private liveFilter(extra: Record<string, unknown>) {
    return { ...extra, revokedAt: null, $or: [{ expiresAt: null }, { expiresAt: { $gt: this.now() } }] };
  }
}

function notFound(): AppError {
  return new AppError("not_found", SHARE_NOT_FOUND);
}

function toView(
  row: Pick<ShareLinkRecord, "linkId" | "sessionId" | "createdAt" | "expiresAt" | "inspector" | "public" | "names">,
): ShareLinkView {
  return {
    linkId: row.linkId,
    sessionId: row.sessionId,
    createdAt: row.createdAt.toISOString(),
    expiresAt: row.expiresAt ? row.expiresAt.toISOString() : null,
    inspector: Boolean(row.inspector),
    public: Boolean(row.public),
    names: Boolean(row.names),
  };
}
