import type { AppInfo, SessionEvent } from "@/lib/contracts";
import { createSession, listSessions, renameSession } from "@/server/data/sessions";
import type { SessionRegistry } from "@/server/sessions/registry";
import { onCommand, type CommandGuard } from "./command";
import { createRateLimiter } from "./rate-limit";
import { sessionRoom, userRoom, type AppServer, type AppSocket } from "./types";

export interface RealtimeDeps {
  registry: SessionRegistry;
  appInfo: AppInfo;
  rateLimit?: { burst: number; perSecond: number };
  log?: { error(msg: string, meta?: object): void };
}

/** Tells every tab of one person that their session list changed. */
export async function broadcastSessions(io: AppServer, userId: string): Promise<void> {
  io.to(userRoom(userId)).emit("sessions:changed", await listSessions(userId));
}

export function registerHandlers(io: AppServer, deps: RealtimeDeps): void {
  const { registry } = deps;
  io.on("connection", (socket: AppSocket) => {
    const userId = socket.data.userId;
    void socket.join(userRoom(userId));
    const limiter = createRateLimiter(deps.rateLimit ?? { burst: 30, perSecond: 10 });
    const guard: CommandGuard = { allow: () => limiter.take(), log: deps.log };
    const changed = () => void broadcastSessions(io, userId).catch(() => undefined);

    onCommand(socket, "app:info", guard, () => deps.appInfo);

    onCommand(socket, "session:list", guard, () => listSessions(userId));

    onCommand(socket, "session:create", guard, async ({ title }) => {
      const session = await createSession(userId, title);
      changed();
      return session;
    });

    onCommand(socket, "session:rename", guard, async ({ sessionId, title }) => {
      const session = await renameSession(userId, sessionId, title);
      (await registry.peek(sessionId))?.setTitle(title);
      changed();
      return session;
    });

    onCommand(socket, "session:delete", guard, async ({ sessionId }) => {
      await registry.remove(userId, sessionId);
      io.in(sessionRoom(sessionId)).socketsLeave(sessionRoom(sessionId));
      changed();
      return { sessionId };
    });

    onCommand(socket, "session:join", guard, async ({ sessionId, lastSeq }) => {
      const session = await registry.get(userId, sessionId);
      return session.join(lastSeq, (missed) => {
        // In order, before anything relayed later: the gap, its end marker, then live.
        if (missed) {
          for (const event of missed) socket.emit("agent:event", event);
          socket.emit("replay:complete", { sessionId, seq: session.currentSeq });
        }
        void socket.join(sessionRoom(sessionId));
      });
    });

    onCommand(socket, "session:leave", guard, async ({ sessionId }) => {
      await socket.leave(sessionRoom(sessionId));
      return { sessionId };
    });

    onCommand(socket, "turn:send", guard, async ({ sessionId, text }) => {
      const session = await registry.get(userId, sessionId);
      const turnId = await session.startTurn(text);
      changed();
      return { turnId };
    });

    onCommand(socket, "turn:cancel", guard, async ({ sessionId, turnId }) => {
      (await registry.get(userId, sessionId)).cancel(turnId);
      return { turnId };
    });

    onCommand(socket, "subagent:steer", guard, async ({ sessionId, runId, message }) => {
      (await registry.get(userId, sessionId)).steer(runId, message);
      return { runId };
    });

    onCommand(socket, "subagent:kill", guard, async ({ sessionId, runId }) => {
      (await registry.get(userId, sessionId)).kill(runId);
      return { runId };
    });
  });
}
