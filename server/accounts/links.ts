import type { OneTimeLink } from "@/lib/contracts";
import type { Models } from "@/models";
import type { OneTimeLinkRecord } from "@/models/account";
import { newPublicId, newToken, tokenDigest } from "./tokens";

/**
 * One-time links (invitations, password resets): the token is in the link only; the
 * database keeps its digest. A link works while unused and unexpired, and using it is one
 * conditional write, so two requests racing with the same link cannot both succeed.
 */
export type LinkKind = "invite" | "reset";

export interface OneTimeLinks {
  /** A new link; `url` builds the address from its token, returned this once only. */
  create(kind: LinkKind, createdBy: string, accountId: string | null, ttlMs: number, url: (token: string) => string): Promise<OneTimeLink>;
  /** The link a token names if it is of this kind, unused and unexpired. */
  live(kind: LinkKind, token: string): Promise<OneTimeLinkRecord | null>;
  /** Marks a link used; false when another request used it first. */
  use(link: OneTimeLinkRecord): Promise<boolean>;
}

export function oneTimeLinks(model: Models["OneTimeLink"], now: () => number): OneTimeLinks {
  return {
    async create(kind, createdBy, accountId, ttlMs, url) {
      const token = newToken();
      const t = now();
      const record = await model.create({
        _id: tokenDigest(token),
        publicId: newPublicId(),
        kind,
        accountId,
        createdBy,
        createdAt: new Date(t),
        expiresAt: new Date(t + ttlMs),
        usedAt: null,
      });
      return { ...linkView(record.toObject() as OneTimeLinkRecord), url: url(token) };
    },
    async live(kind, token) {
      const link = await model.findById(tokenDigest(token)).lean<OneTimeLinkRecord>();
      if (!link || link.kind !== kind || link.usedAt || link.expiresAt.getTime() <= now()) return null;
      return link;
    },
    async use(link) {
      const used = await model.updateOne({ _id: link._id, usedAt: null }, { usedAt: new Date(now()) });
      return used.modifiedCount === 1;
    },
  };
}

export function linkView(link: OneTimeLinkRecord): OneTimeLink {
  return {
    id: link.publicId,
    createdAt: link.createdAt.toISOString(),
    expiresAt: link.expiresAt.toISOString(),
    usedAt: link.usedAt ? link.usedAt.toISOString() : null,
  };
}
