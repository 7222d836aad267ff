import {
  API_TOKEN_PREFIX,
  AppError,
  MAX_API_TOKENS,
  type ApiToken,
  type ApiTokenCreate,
  type ApiTokenCreated,
  type ApiTokenScope,
} from "@/lib/contracts";
import type { Models } from "@/models";
import type { ApiTokenRecord } from "@/models/api-token";
import { newPublicId, newToken, TOKEN_PATTERN, tokenDigest } from "@/server/accounts/tokens";

/**
 * A person's API tokens: create (the secret is answered this once), list and revoke for
 * their owner, and `verify` for a bearer secret. Only the secret's SHA-256 is kept, and a
 * secret is found by it; a revoked, unknown or malformed secret, one of another scope and
 * one whose owner's account is disabled or gone all verify as nothing.
 */
export interface ApiTokenServiceDeps {
  model: Models["ApiToken"];
  /**
   * Whether the owner is an account that may act now (account modes: it exists and is not
   * disabled; a token made before accounts, by a browser identity, is no one's). Absent:
   * owners are browser identities, which are always someone.
   */
  ownerActive?(ownerId: string): Promise<boolean>;
  now?: () => Date;
}

/** Who a verified secret speaks for. */
export interface TokenHolder {
  ownerId: string;
  tokenId: string;
}

/** `lastUsedAt` is written at most this often per token: a busy caller must not write on every request. */
const LAST_USED_EVERY_MS = 60_000;

export class ApiTokenService {
  constructor(private readonly deps: ApiTokenServiceDeps) {}

  private now(): Date {
    return this.deps.now?.() ?? new Date();
  }

  async list(ownerId: string): Promise<ApiToken[]> {
    const records = await this.deps.model.find({ ownerId }).sort({ createdAt: -1 }).limit(500).lean<ApiTokenRecord[]>();
    return records.map(toView);
  }

  async create(ownerId: string, input: ApiTokenCreate): Promise<ApiTokenCreated> {
    if ((await this.deps.model.countDocuments({ ownerId, revokedAt: null })) >= MAX_API_TOKENS) {
      throw new AppError("limit_reached", `You have ${MAX_API_TOKENS} tokens already; revoke some first.`);
    }
    const secret = `${API_TOKEN_PREFIX}${newToken()}`;
    const record = {
      _id: tokenDigest(secret),
      tokenId: newPublicId(),
      ownerId,
      name: input.name,
      scope: input.scope,
      createdAt: this.now(),
      lastUsedAt: null,
      revokedAt: null,
    };
    await this.deps.model.create(record);
    return { token: toView(record), secret };
  }

  /** Revoking twice is the same as once; another person's token is `not_found`. */
  async revoke(ownerId: string, tokenId: string): Promise<ApiToken> {
    const record = await this.deps.model
      .findOneAndUpdate({ tokenId, ownerId, revokedAt: null }, { $set: { revokedAt: this.now() } }, { returnDocument: "after" })
      .lean<ApiTokenRecord>();
    if (record) return toView(record);
    const already = await this.deps.model.findOne({ tokenId, ownerId }).lean<ApiTokenRecord>();
    if (!already) throw new AppError("not_found", "No such token.");
    return toView(already);
  }

  /** The holder of a live secret of `scope`, or null; notes its use. */
  async verify(secret: string | undefined, scope: ApiTokenScope): Promise<TokenHolder | null> {
    if (!secret?.startsWith(API_TOKEN_PREFIX) || !TOKEN_PATTERN.test(secret.slice(API_TOKEN_PREFIX.length))) return null;
    const record = await this.deps.model.findById(tokenDigest(secret)).lean<ApiTokenRecord>();
    if (!record || record.revokedAt || record.scope !== scope) return null;
    if (this.deps.ownerActive && !(await this.deps.ownerActive(record.ownerId))) return null;
    const now = this.now();
    if (!record.lastUsedAt || now.getTime() - record.lastUsedAt.getTime() >= LAST_USED_EVERY_MS) {
      await this.deps.model.updateOne({ _id: record._id }, { $set: { lastUsedAt: now } });
    }
    return { ownerId: record.ownerId, tokenId: record.tokenId };
  }
}

function toView(record: Pick<ApiTokenRecord, "tokenId" | "name" | "scope" | "createdAt" | "lastUsedAt" | "revokedAt">): ApiToken {
  return {
    id: record.tokenId,
    name: record.name,
    scope: record.scope as ApiTokenScope,
    createdAt: record.createdAt.toISOString(),
    lastUsedAt: record.lastUsedAt ? record.lastUsedAt.toISOString() : null,
    revokedAt: record.revokedAt ? record.revokedAt.toISOString() : null,
  };
}
