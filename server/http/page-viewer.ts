import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { sessionJoinSchema, type ErrorCode, type JoinResult } from "@/lib/contracts";
import type { InitialChat } from "@/lib/chat/session-state";

/**
 * How a page that Next renders learns who asks for it. The custom server's request handler
 * (request-handler.ts) has already decided who the request is from, exactly as the socket
 * handshake decides (the account's sign-in session, or APP_PASSWORD's login and the
 * identity cookie); it hands that person's view of their chats to the page under a
 * one-time token in a request header. The page reads the header and asks for the chat by token alone: it never sees a
 * cookie, and a header of that name from the client is always replaced or removed, so
 * no one can name a viewer. The token is forgotten when the response ends.
 *
 * Why a process-wide map: Next bundles the page with its own copy of this module, so the
 * copy the custom server loaded and the page's copy share nothing but `globalThis`. One
 * registered symbol holds the map; tokens keep several apps in one process (the tests)
 * apart.
 */
export const PAGE_VIEWER_HEADER = "x-delegate-viewer";

/** What a page may ask on behalf of the person the request is from. */
export interface PageViewer {
  /** The chat's join: its newest page of turns and the sequence number it is consistent with. */
  join(sessionId: string): Promise<JoinResult>;
}

const KEY = Symbol.for("delegate.page-viewers");
const registry = globalThis as typeof globalThis & { [KEY]?: Map<string, PageViewer> };
const viewers: Map<string, PageViewer> = (registry[KEY] ??= new Map());

/** Hands `viewer` to the page this request renders (and takes any client-sent token away). */
export function admitPageViewer(req: IncomingMessage, res: ServerResponse, viewer: PageViewer): void {
  const token = randomBytes(18).toString("base64url");
  viewers.set(token, viewer);
  req.headers[PAGE_VIEWER_HEADER] = token;
  res.once("close", () => viewers.delete(token));
}

/** A request no one is signed in for: the page gets no viewer, whatever the client sent. */
export function refusePageViewer(req: IncomingMessage): void {
  delete req.headers[PAGE_VIEWER_HEADER];
}

/** The viewer admitted under `token`, if the request is still being answered. */
export function pageViewer(token: string | null | undefined): PageViewer | undefined {
  return token ? viewers.get(token) : undefined;
}

/**
 * The chat page's first page of turns for whoever the request is from: the same join a
 * socket makes (ownership checked by the session service), or `notFound` for a chat that
 * is not there for them, whether it does not exist or is someone else's. Null when the
 * HTML cannot say (no viewer, a malformed id, the database away): the browser then joins
 * over the socket as it always did, and shows what that join answers.
 */
export async function initialChat(viewer: PageViewer | undefined, sessionId: string): Promise<InitialChat | null> {
  if (!viewer || !sessionJoinSchema.safeParse({ sessionId }).success) return null;
  try {
    const joined = await viewer.join(sessionId);
    return joined.mode === "snapshot" ? { snapshot: joined } : null;
  } catch (error) {
    return errorCode(error) === "not_found" ? { notFound: true } : null;
  }
}

/** By its code, not `instanceof AppError`: the page's bundle has its own copy of that class. */
function errorCode(error: unknown): ErrorCode | undefined {
  return typeof error === "object" && error !== null && "code" in error ? (error as { code: ErrorCode }).code : undefined;
}
