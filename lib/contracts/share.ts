import { z } from "zod";
import type { AckCallback } from "./ack";
import type { SessionEvent } from "./events";
import type { JoinResult, TurnPage } from "./socket";
import type { ChatPerson } from "./members";

/**
 * Read-only share links. The owner manages them over HTTP (owner only,
 * like export); a viewer opens `/s/<token>` and reads the chat through the share socket
 * namespace, which answers two reads and refuses every other command. The token is shown
 * once, at creation: only its SHA-256 is stored.
 */

/** How long a new link lives; `never` until revoked. */
export const SHARE_EXPIRIES = ["1d", "7d", "30d", "never"] as const;
export type ShareExpiry = (typeof SHARE_EXPIRIES)[number];
export const SHARE_EXPIRY_MS: Record<ShareExpiry, number | null> = {
  "1d": 86_400_000,
  "7d": 7 * 86_400_000,
  "30d": 30 * 86_400_000,
  never: null,
};

export const shareCreateBody = z
  .object({
    expiresIn: z.enum(SHARE_EXPIRIES).default("7d"),
    /** Whether the viewer may open the context inspector (every model request as sent). */
    inspector: z.boolean().default(false),
    /** Whether the viewer sees who did what (the names of the chat's members); off unless the owner asks. */
    names: z.boolean().default(false),
    /** Whether the viewer may be anyone with the link, signed in or not. */
    public: z.boolean().default(false),
  })
  .strict();
export type ShareCreate = z.infer<typeof shareCreateBody>;

/** One link as its owner sees it (never its token, which is not kept). */
export interface ShareLinkView {
  linkId: string;
  sessionId: string;
  createdAt: string;
  /** Null: never expires. */
  expiresAt: string | null;
  inspector: boolean;
  public: boolean;
  /** The viewer sees members' names (who sent each prompt, who decided). */
  names: boolean;
}

/** The answer to creating a link: the link, and its path with the token (shown once). */
export interface ShareCreated {
  link: ShareLinkView;
  /** `/s/<token>`; the browser prefixes its origin. */
  path: string;
}

/** The owner's routes: list and create on the collection, revoke one by id. */
export const SHARE_ROUTES = {
  links: (sessionId: string) => `/api/sessions/${encodeURIComponent(sessionId)}/shares`,
  revoke: (sessionId: string, linkId: string) =>
    `/api/sessions/${encodeURIComponent(sessionId)}/shares/${encodeURIComponent(linkId)}/revoke`,
  /** The viewer's reads (full tool output, model calls) mirror `/api/sessions/<id>/…` under this base. */
  viewerApi: (token: string) => `/api/shared/${encodeURIComponent(token)}`,
  page: (token: string) => `/s/${encodeURIComponent(token)}`,
} as const;

/** The Socket.IO namespace share viewers connect to; its handshake carries `auth: { token }`. */
export const SHARE_NAMESPACE = "/share";

/** What the viewer is shown besides the turns. */
export interface SharedChat {
  sessionId: string;
  title: string;
  inspector: boolean;
  /** Null: never expires. */
  expiresAt: string | null;
  /** The chat's people by name, when the owner let this link show who did what. */
  people?: ChatPerson[];
}

export const shareJoinSchema = z.object({ lastSeq: z.number().int().min(0).optional() }).strict();
export const shareOlderSchema = z
  .object({ before: z.string().min(1).max(100), limit: z.number().int().min(1).max(100).optional() })
  .strict();

export interface ShareClientToServerEvents {
  "share:join": (input: z.infer<typeof shareJoinSchema>, ack: AckCallback<{ chat: SharedChat; join: JoinResult }>) => void;
  "share:older": (input: z.infer<typeof shareOlderSchema>, ack: AckCallback<TurnPage>) => void;
}

export const shareCommandSchemas = {
  "share:join": shareJoinSchema,
  "share:older": shareOlderSchema,
} satisfies Record<keyof ShareClientToServerEvents, z.ZodType>;

export interface ShareServerToClientEvents {
  "agent:event": (event: SessionEvent) => void;
  "replay:complete": (info: { sessionId: string; seq: number }) => void;
  /** The link was revoked or ran out: the server disconnects this socket right after. */
  "share:revoked": (info: { reason: "revoked" | "expired" | "deleted" }) => void;
}

export interface ShareSocketData {
  linkId: string;
  sessionId: string;
  ownerId: string;
  inspector: boolean;
  /** The link shows members' names: its viewers are sent the turns with their account ids, and the people. */
  names: boolean;
  /** Epoch ms when the link runs out; null: never. */
  expiresAt: number | null;
  /** The sign-in a non-public link was opened under: ending it closes this socket too. */
  viewer?: ShareViewer;
}

/** Who opened a link: the APP_PASSWORD login session, or the account and its sign-in session. */
export interface ShareViewer {
  authSession?: string;
  accountId?: string;
  signInSessionId?: string;
}

/** The handshake's refusals: the page tells them apart by these exact messages. */
export const SHARE_HANDSHAKE = {
  notFound: "not_found: this share link does not exist, was revoked or has expired",
  signIn: "unauthorized: sign in to view this shared chat",
} as const;

/** The one answer to any command other than the share reads, sent on a share socket. */
export const SHARE_READ_ONLY_MESSAGE = "A shared chat is read-only: this link can only read the chat.";
