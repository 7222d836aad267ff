import type { Namespace, Socket } from "socket.io";
import {
  describeIssues,
  SHARE_HANDSHAKE,
  SHARE_NAMESPACE,
  SHARE_READ_ONLY_MESSAGE,
  shareCommandSchemas,
  type Ack,
  type AckCallback,
  type ShareClientToServerEvents,
  type ShareServerToClientEvents,
  type ShareSocketData,
  type ShareViewer,
  type ChatPerson,
  type JoinResult,
  type SessionEvent,
  type TurnPage,
} from "@/lib/contracts";
import type { Logger } from "@/lib/log";
import { toAppError } from "@/server/errors";
import { createRateLimiter, type RateLimit } from "@/server/realtime/rate-limit";
import { sessionRoom, type AppServer } from "@/server/realtime/types";
import type { SessionService } from "@/server/sessions/session-service";
import type { ShareService } from "./share-service";
import { viewerEvent, viewerJoin, viewerPage } from "./viewer-view";

/**
 * The share viewers' socket namespace: a handshake that resolves the link (and asks for a
 * sign-in when the link is not public and the instance has a login), two reads
 * (`share:join`, `share:older`) of that one chat, its live events, and nothing else:
 * every other command is answered with a refusal. Rooms are per namespace, so a viewer
 * can never be put in a user's room or another chat's.
 */
export type ShareNamespace = Namespace<ShareClientToServerEvents, ShareServerToClientEvents, Record<string, never>, ShareSocketData>;
type ShareSocket = Socket<ShareClientToServerEvents, ShareServerToClientEvents, Record<string, never>, ShareSocketData>;

export interface ShareSocketDeps {
  shares: ShareService;
  sessions: SessionService;
  /** The sign-in the handshake's cookies carry; null when none is valid and the instance has a login ({} without one). */
  viewer(cookieHeader: string | undefined): Promise<ShareViewer | null>;
  rateLimit?: RateLimit;
  log?: Pick<Logger, "error">;
  /** A chat's people by name, for a link that shows who did what (server/members/). */
  people?(sessionId: string): Promise<ChatPerson[]>;
}

/** A chat's share viewers whose links show names: they are sent its events as they are (see relay.ts). */
export const namedShareRoom = (sessionId: string) => `${sessionRoom(sessionId)}:names`;

/** Every viewer of one link, across processes (the room travels through the adapter). */
export const linkRoom = (linkId: string) => `share-link:${linkId}`;

const DEFAULT_RATE_LIMIT: RateLimit = { burst: 20, perSecond: 5 };
/** setTimeout's largest delay; a later expiry is checked again when it fires. */
const MAX_TIMER_MS = 2_147_483_647;

export function registerShareNamespace(io: AppServer, deps: ShareSocketDeps): ShareNamespace {
  // The server's generics describe the main namespace; this one has its own typed maps.
  const ns = io.of(SHARE_NAMESPACE) as unknown as ShareNamespace;

  ns.use((socket, next) => {
    const token = (socket.handshake.auth as { token?: unknown } | undefined)?.token;
    void (async () => {
      const link = await deps.shares.resolve(token);
      if (!link.public) {
        const viewer = await deps.viewer(socket.request.headers.cookie);
        if (!viewer) return next(new Error(SHARE_HANDSHAKE.signIn));
        socket.data.viewer = viewer;
      }
      socket.data.linkId = link.linkId;
      socket.data.sessionId = link.sessionId;
      socket.data.ownerId = link.ownerId;
      socket.data.inspector = link.inspector;
      socket.data.names = link.names;
      socket.data.expiresAt = link.expiresAt?.getTime() ?? null;
      next();
    })().catch((error: unknown) => {
      const known = toAppError(error);
      if (known?.code === "not_found") next(new Error(SHARE_HANDSHAKE.notFound));
      else if (known) next(new Error(`${known.code}: ${known.message}`));
      else {
        deps.log?.error("share handshake failed", { error: error instanceof Error ? error.stack : String(error) });
        next(new Error("internal: the share link could not be opened"));
      }
    });
  });

  ns.on("connection", (socket: ShareSocket) => {
    const { linkId, sessionId, ownerId, names } = socket.data;
    // A link that shows names is sent the chat as its members see it; any other, without account ids.
    const asEvent = names ? (event: SessionEvent) => event : viewerEvent;
    const asJoin = names ? (join: JoinResult) => join : viewerJoin;
    const asPage = names ? (page: TurnPage) => page : viewerPage;
    void socket.join(linkRoom(linkId));
    const limiter = createRateLimiter(deps.rateLimit ?? DEFAULT_RATE_LIMIT);
    const expiry = armExpiry(socket);
    socket.on("disconnect", () => clearTimeout(expiry.timer));

    /** Every read checks the link again: a revoke on another process cannot be missed. */
    const live = async () => {
      const link = await deps.shares.resolve(socket.handshake.auth.token);
      const people = link.names && deps.people ? await deps.people(sessionId) : undefined;
      return {
        chat: {
          sessionId,
          title: link.title,
          inspector: link.inspector,
          expiresAt: link.expiresAt?.toISOString() ?? null,
          ...(people ? { people } : {}),
        },
      };
    };

    onShareCommand(socket, "share:join", limiter, deps.log, async ({ lastSeq }) => {
      const { chat } = await live();
      const join = await deps.sessions.join(ownerId, sessionId, lastSeq, (missed, seq) => {
        if (missed) {
          for (const event of missed) socket.emit("agent:event", asEvent(event));
          socket.emit("replay:complete", { sessionId, seq });
        }
        void socket.join(names ? namedShareRoom(sessionId) : sessionRoom(sessionId));
      });
      return { chat, join: asJoin(join) };
    });
    onShareCommand(socket, "share:older", limiter, deps.log, async ({ before, limit }) => {
      await live();
      return asPage(await deps.sessions.older(ownerId, sessionId, before, limit));
    });

    // Anything else a viewer sends (turn:send, subagent:kill, session:list…) is refused.
    socket.onAny((event: string, ...args: unknown[]) => {
      if (event in shareCommandSchemas) return;
      const ack = args.at(-1);
      if (typeof ack === "function") (ack as AckCallback<never>)({ ok: false, code: "unauthorized", message: SHARE_READ_ONLY_MESSAGE });
    });
  });
  return ns;
}

/** An expiring link ends its viewers' sockets when it runs out, as a revoke would. */
function armExpiry(socket: ShareSocket): { timer: ReturnType<typeof setTimeout> | undefined } {
  const state: { timer: ReturnType<typeof setTimeout> | undefined } = { timer: undefined };
  const at = socket.data.expiresAt;
  if (at === null || at === undefined) return state;
  const arm = () => {
    const left = at - Date.now();
    if (left <= 0) {
      socket.emit("share:revoked", { reason: "expired" });
      socket.disconnect(true);
      return;
    }
    state.timer = setTimeout(arm, Math.min(left, MAX_TIMER_MS));
  };
  arm();
  return state;
}

/**
 * A sign-in ended (logout, sign-out elsewhere, account disabled): the share sockets opened
 * under it for a non-public link close; the page then finds it must sign in again.
 */
export function cutShareViewers(ns: ShareNamespace, ended: (viewer: ShareViewer) => boolean): void {
  for (const socket of ns.sockets.values()) if (socket.data.viewer && ended(socket.data.viewer)) socket.disconnect(true);
}

/** Tells every viewer of a link that it ended, then cuts them off (on every process). */
export function endShareViewers(ns: ShareNamespace, linkId: string, reason: "revoked" | "expired" | "deleted"): void {
  ns.to(linkRoom(linkId)).emit("share:revoked", { reason });
  ns.in(linkRoom(linkId)).disconnectSockets(true);
}

type ShareCommand = keyof ShareClientToServerEvents;
type Input<K extends ShareCommand> = Parameters<ShareClientToServerEvents[K]>[0];
type Result<K extends ShareCommand> = Parameters<Parameters<ShareClientToServerEvents[K]>[1]>[0] extends Ack<infer T> ? T : never;

/** The share namespace's `onCommand` (server/realtime/command.ts): validate, act, acknowledge. */
function onShareCommand<K extends ShareCommand>(
  socket: ShareSocket,
  name: K,
  limiter: { take(): boolean },
  log: Pick<Logger, "error"> | undefined,
  handler: (input: Input<K>) => Promise<Result<K>>,
): void {
  (socket.on as (event: string, fn: (...args: unknown[]) => void) => void)(name, (...args) => {
    const ack = typeof args.at(-1) === "function" ? (args.at(-1) as (r: Ack<Result<K>>) => void) : undefined;
    const inputs = ack ? args.slice(0, -1) : args;
    if (!ack) return;
    if (inputs.length > 1)
      return ack({ ok: false, code: "bad_request", message: `Invalid ${name} request: send one input object and an acknowledgement.` });
    if (!limiter.take())
      return ack({ ok: false, code: "rate_limited", message: "Too many requests; slow down and try again in a moment." });
    const parsed = shareCommandSchemas[name].safeParse(inputs.length === 0 ? {} : inputs[0]);
    if (!parsed.success) {
      const issues = describeIssues(parsed.error.issues);
      return ack({
        ok: false,
        code: "bad_request",
        message: `Invalid ${name} request: ${issues[0]?.path ?? ""} ${issues[0]?.message ?? ""}`.trim(),
        issues,
      });
    }
    handler(parsed.data as Input<K>).then(
      (data) => ack({ ok: true, data }),
      (error: unknown) => {
        const known = toAppError(error);
        if (!known) log?.error(`share command ${name} failed`, { error: error instanceof Error ? error.stack : String(error) });
        const e = known ?? { code: "internal" as const, message: "Something went wrong on the server." };
        ack({ ok: false, code: e.code, message: e.message });
      },
    );
  });
}
