import { AppError, type AppInfo } from "@/lib/contracts";
import { personKey } from "@/server/accounts/identity";
import type { SessionService } from "@/server/sessions/session-service";
import type { AgentService } from "@/server/agents/agent-service";
import type { MemberService } from "@/server/members/member-service";
import { onCommand, type CommandGuard } from "./command";
import { createKeyedRateLimiter, createRateLimiter, type RateLimit } from "./rate-limit";
import { sessionRoom, userRoom, type AppServer, type AppSocket } from "./types";
import type { Logger } from "@/lib/log";
import type { LimiterStore } from "@/server/limiter-store";
import { memoryOpenSockets, type OpenSockets } from "./open-sockets";
import { openChats } from "./presence";

export interface RealtimeDeps {
  sessions: SessionService;
  /** Subagent definitions made in the app; absent: their commands answer not_found. */
  agents?: AgentService;
  /** A function when part of it changes while the server runs (MCP servers' state). */
  appInfo: AppInfo | ((ownerId?: string) => AppInfo | Promise<AppInfo>);
  /** Per connection. */
  rateLimit?: RateLimit;
  /** Per person, across all of their connections. */
  personRateLimit?: RateLimit;
  /** Where the per-person budget is counted (Redis when scaled out); default this process's memory. */
  limiterStore?: LimiterStore;
  /** Where each person's open connections are counted (Redis when scaled out); default this process's memory. */
  openSockets?: OpenSockets;
  log?: Pick<Logger, "error">;
  /** Chats' members (server/members/); absent: their commands answer not_found. */
  members?: MemberService;
  /** Tells a chat's room who has it open (server/realtime/presence.ts); absent: nobody is told. */
  presence?: (sessionId: string) => void;
}

const DEFAULT_RATE_LIMIT: RateLimit = { burst: 30, perSecond: 10 };
const DEFAULT_PERSON_RATE_LIMIT: RateLimit = { burst: 120, perSecond: 40 };

/**
 * The socket's commands: each is validated by `onCommand` and handed to the session
 * service, which is where ownership is checked and the work is done.
 */
export function registerHandlers(io: AppServer, deps: RealtimeDeps): void {
  const { sessions } = deps;
  // A person's budget is shared by their sockets (20 may be open, on any process) and survives reconnects.
  const personLimiter = createKeyedRateLimiter(deps.personRateLimit ?? DEFAULT_PERSON_RATE_LIMIT, deps.limiterStore);
  // At most `sockets` connections per person (on every process, with Redis): more are refused at the handshake.
  const openSockets = deps.openSockets ?? memoryOpenSockets();
  io.use((socket, next) => {
    const person = personKey(socket.data);
    const limit = sessions.limits.sockets;
    void openSockets.admit(person, socket.id, limit).then((admitted) => {
      if (!admitted) {
        next(new Error(`limit_reached: ${limit} connections are open for you already; close some tabs`));
        return;
      }
      let left = false;
      const leave = () => {
        if (left) return;
        left = true;
        socket.conn.off("close", leave);
        openSockets.leave(person, socket.id);
      };
      // A connection that closes before the socket connects gets no "disconnect": its close counts it out.
      if (socket.conn.readyState !== "open") {
        leave();
        next(new Error("the connection closed during its handshake"));
        return;
      }
      socket.conn.once("close", leave);
      socket.on("disconnect", leave);
      next();
    });
  });
  io.on("connection", (socket: AppSocket) => {
    const userId = socket.data.userId;
    const person = personKey(socket.data);
    void socket.join(userRoom(userId));
    const presence = deps.presence;
    if (presence) {
      // Read before the socket leaves its rooms; told once it has.
      let open: string[] = [];
      socket.on("disconnecting", () => (open = openChats(socket)));
      socket.on("disconnect", () => open.forEach(presence));
    }
    const limiter = createRateLimiter(deps.rateLimit ?? DEFAULT_RATE_LIMIT);
    // The connection's bucket first: a socket over its own limit spends nothing of the person's.
    const guard: CommandGuard = { allow: async () => limiter.take() && (await personLimiter.take(person)), log: deps.log };

    onCommand(socket, "app:info", guard, async () => {
      const info = typeof deps.appInfo === "function" ? await deps.appInfo(userId) : deps.appInfo;
      return deps.members?.enabled ? { ...info, members: true } : info;
    });
    onCommand(socket, "session:list", guard, () => sessions.list(userId));
    onCommand(socket, "session:create", guard, ({ title }) => sessions.create(userId, title));
    onCommand(socket, "session:rename", guard, ({ sessionId, title }) => sessions.rename(userId, sessionId, title));
    onCommand(socket, "session:delete", guard, async ({ sessionId }) => {
      await sessions.delete(userId, sessionId);
      return { sessionId };
    });
    onCommand(socket, "session:join", guard, async ({ sessionId, lastSeq }) => {
      const joined = await sessions.join(userId, sessionId, lastSeq, (missed, seq) => {
        // In order, before anything relayed later: the gap, its end marker, then live.
        if (missed) {
          for (const event of missed) socket.emit("agent:event", event);
          socket.emit("replay:complete", { sessionId, seq });
        }
        void socket.join(sessionRoom(sessionId));
      });
      presence?.(sessionId);
      return joined;
    });
    onCommand(socket, "session:older", guard, ({ sessionId, before, limit }) => sessions.older(userId, sessionId, before, limit));
    onCommand(socket, "session:leave", guard, async ({ sessionId }) => {
      await socket.leave(sessionRoom(sessionId));
      presence?.(sessionId);
      return { sessionId };
    });
    onCommand(socket, "turn:send", guard, ({ sessionId, text, model, attachments, budget }) =>
      sessions.send(userId, sessionId, text, person, { model, attachments, budget }),
    );
    onCommand(socket, "turn:edit", guard, ({ sessionId, turnId, text, model }) =>
      sessions.startBeside(userId, sessionId, turnId, text, person, model),
    );
    onCommand(socket, "turn:regenerate", guard, ({ sessionId, turnId, model }) =>
      sessions.startBeside(userId, sessionId, turnId, undefined, person, model),
    );
    onCommand(socket, "session:branch", guard, ({ sessionId, turnId }) =>
      sessions.switchBranch(userId, sessionId, turnId, (missed, seq) => {
        if (missed) {
          for (const event of missed) socket.emit("agent:event", event);
          socket.emit("replay:complete", { sessionId, seq });
        }
        void socket.join(sessionRoom(sessionId));
      }),
    );
    onCommand(socket, "session:fork", guard, ({ sessionId, turnId }) => sessions.fork(userId, sessionId, turnId));
    onCommand(socket, "model:list", guard, () => sessions.models());
    onCommand(socket, "chat:settings", guard, ({ sessionId }) => sessions.settings(userId, sessionId));
    onCommand(socket, "chat:configure", guard, (input) => sessions.configure(userId, input));
    onCommand(socket, "turn:cancel", guard, async ({ sessionId, turnId }) => {
      await sessions.command(userId, sessionId, { kind: "cancel", turnId });
      return { turnId };
    });
    onCommand(socket, "subagent:steer", guard, async ({ sessionId, runId, message }) => {
      await sessions.command(userId, sessionId, { kind: "steer", runId, message });
      return { runId };
    });
    onCommand(socket, "subagent:kill", guard, async ({ sessionId, runId }) => {
      await sessions.command(userId, sessionId, { kind: "kill", runId });
      return { runId };
    });
    onCommand(socket, "tool:decide", guard, async ({ sessionId, callId, runId, decision, reason }) => {
      await sessions.command(userId, sessionId, {
        kind: "decide",
        callId,
        runId,
        approve: decision === "approve",
        by: userId,
        ...(reason !== undefined ? { reason } : {}),
      });
      return { callId };
    });
    onCommand(socket, "tool:answer", guard, async ({ sessionId, callId, runId, action, content }) => {
      await sessions.command(userId, sessionId, {
        kind: "answer",
        callId,
        runId,
        action,
        by: userId,
        ...(content !== undefined ? { content } : {}),
      });
      return { callId };
    });
    onCommand(socket, "session:page", guard, ({ before, limit }) => sessions.page(userId, before, limit));
    onCommand(socket, "session:search", guard, ({ query, subagents }) => sessions.search(userId, query, subagents));
    const agents = () => deps.agents ?? noAgents();
    onCommand(socket, "agent:list", guard, ({ sessionId }) => agents().list(userId, sessionId));
    onCommand(socket, "agent:get", guard, ({ id }) => agents().get(userId, id));
    onCommand(socket, "agent:create", guard, ({ definition, shared }) => agents().create(userId, definition, shared));
    onCommand(socket, "agent:update", guard, ({ id, definition, baseVersion }) => agents().update(userId, id, definition, baseVersion));
    onCommand(socket, "agent:duplicate", guard, ({ key }) => agents().duplicate(userId, key));
    onCommand(socket, "agent:delete", guard, ({ id }) => agents().delete(userId, id));
    onCommand(socket, "chat:agents", guard, ({ sessionId, key, enabled }) => agents().setForChat(userId, sessionId, key, enabled));
    const members = () => deps.members ?? noMembers();
    onCommand(socket, "member:list", guard, ({ sessionId }) => members().list(userId, sessionId));
    onCommand(socket, "member:add", guard, (input) => members().add(userId, input));
    onCommand(socket, "member:role", guard, (input) => members().setRole(userId, input));
    onCommand(socket, "member:remove", guard, (input) => members().remove(userId, input));
    onCommand(socket, "member:typing", guard, ({ sessionId }) => members().typing(userId, sessionId));
    onCommand(socket, "subagent:retry", guard, ({ sessionId, runId, task }) =>
      sessions.command(userId, sessionId, { kind: "retry", runId, ...(task !== undefined ? { task } : {}) }, person),
    );
  });
}

function noMembers(): never {
  throw new AppError("not_found", "Chats have no members on this server.");
}

function noAgents(): never {
  throw new AppError("not_found", "Subagent definitions made in the app are not kept on this server.");
}
