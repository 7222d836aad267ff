import { TaskState } from "@a2a-js/sdk";
import type { AgentExecutor, ExecutionEventBus, RequestContext } from "@a2a-js/sdk/server";
import { TurnFollower, type TurnProgress } from "@/lib/a2a-server/turn-progress";
import type { SessionEvent } from "@/lib/contracts";
import type { Logger } from "@/lib/log";
import type { Models } from "@/models";
import { toAppError } from "@/server/errors";
import type { SessionService } from "@/server/sessions/session-service";
import { ownerOf } from "./task-store";
import { TaskPublisher, textOf } from "./task-publisher";
import type { TurnTaps } from "./turn-taps";

export interface DelegateExecutorDeps {
  sessions: Pick<SessionService, "create" | "send" | "command" | "settings">;
  taps: TurnTaps;
  tasks: Models["A2ATask"];
  log?: Pick<Logger, "warn">;
  /** How often a quiet turn's last line is said again; HEARTBEAT_MS by default. */
  heartbeatMs?: number;
}

/** A chat's title: "A2A: " and the first words of the task's first line. */
const TITLE_WORDS = 8;
const TITLE_CHARS = 80;

/**
 * While the turn runs with nothing new to say (a call waiting for its owner), its last line
 * is said again this often: a caller's idle timeout (another Delegate's A2A_IDLE_TIMEOUT_MS)
 * and the connection's own then see a task that is alive.
 */
const HEARTBEAT_MS = 20_000;

const ENDED_STATE = {
  completed: TaskState.TASK_STATE_COMPLETED,
  failed: TaskState.TASK_STATE_FAILED,
  cancelled: TaskState.TASK_STATE_CANCELED,
} as const;

/**
 * Runs each A2A task as a turn of the token owner's chat for the task's context (one
 * chat per context, made through the session service as a person's chat is, so it is in
 * their sidebar and its panels, approvals and storage work as for their own turns), and
 * streams what the turn does: working as it starts, a line as each subagent starts and
 * ends, a line while a call waits for the owner's approval, then the master's answer as
 * the artifact "answer" and completed, or failed with the turn's error, or canceled.
 */
export class DelegateExecutor implements AgentExecutor {
  constructor(private readonly deps: DelegateExecutorDeps) {}

  execute = async (context: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const say = new TaskPublisher(context, bus);
    say.task(context.task);
    const ownerId = ownerOf(context.context);
    const text = textOf(context.userMessage).trim();
    if (!ownerId) return say.status(TaskState.TASK_STATE_FAILED, "No signed-in caller.");
    if (!text) return say.status(TaskState.TASK_STATE_FAILED, "Send the task as text: Delegate reads text parts only.");
    try {
      const sessionId = await this.chatFor(ownerId, context.contextId, text);
      await this.runTurn(ownerId, sessionId, text, context, say);
    } catch (error) {
      const known = toAppError(error);
      if (!known) this.deps.log?.warn("an A2A task failed", { taskId: context.taskId, error: String(error) });
      say.status(TaskState.TASK_STATE_FAILED, known?.message ?? "Delegate could not run the task.");
    }
  };

  cancelTask = async (taskId: string, bus: ExecutionEventBus): Promise<void> => {
    const record = await this.deps.tasks
      .findById(taskId, { ownerId: 1, sessionId: 1, turnId: 1, contextId: 1 })
      .lean<{ ownerId: string; sessionId: string | null; turnId: string | null; contextId: string }>();
    if (!record?.sessionId || !record.turnId) {
      // Not started yet (or never will): nothing runs to stop, so the task ends here.
      new TaskPublisher({ taskId, contextId: record?.contextId ?? "", userMessage: undefined as never }, bus).status(
        TaskState.TASK_STATE_CANCELED,
      );
      return;
    }
    // The turn's end (cancelled) reaches the running `execute`, which reports it and ends.
    await this.deps.sessions.command(record.ownerId, record.sessionId, { kind: "cancel", turnId: record.turnId });
  };

  /** The owner's chat of this context: the one an earlier task of it ran in, while it exists, else a new one. */
  private async chatFor(ownerId: string, contextId: string, text: string): Promise<string> {
    const earlier = await this.deps.tasks
      .findOne({ ownerId, contextId, sessionId: { $ne: null } }, { sessionId: 1 })
      .sort({ updatedAt: -1 })
      .lean<{ sessionId: string }>();
    if (earlier) {
      const exists = await this.deps.sessions.settings(ownerId, earlier.sessionId).then(
        () => true,
        () => false,
      );
      if (exists) return earlier.sessionId;
    }
    return (await this.deps.sessions.create(ownerId, titleOf(text))).sessionId;
  }

  private async runTurn(ownerId: string, sessionId: string, text: string, context: RequestContext, say: TaskPublisher): Promise<void> {
    // Listening before the turn starts: its first events may be relayed before `send` answers.
    const early: SessionEvent[] = [];
    let follower: TurnFollower | undefined;
    let ended!: () => void;
    const done = new Promise<void>((resolve) => (ended = resolve));
    let last = { text: "Started in Delegate", at: Date.now() };
    const working = (text: string) => {
      last = { text, at: Date.now() };
      say.status(TaskState.TASK_STATE_WORKING, text);
    };
    const every = this.deps.heartbeatMs ?? HEARTBEAT_MS;
    const heartbeat = setInterval(() => {
      if (follower && Date.now() - last.at >= every) working(last.text);
    }, every / 4);
    const show = (progress: TurnProgress) => {
      if (progress.kind === "status") return working(progress.text);
      if (progress.status === "completed") say.artifact("answer", progress.answer);
      say.status(
        ENDED_STATE[progress.status],
        progress.status === "completed" ? undefined : (progress.error ?? `The turn was ${progress.status}.`),
      );
      ended();
    };
    const stop = this.deps.taps.listen(sessionId, (event) => {
      if (follower) follower.next(event).forEach(show);
      else early.push(event);
    });
    try {
      const { turnId } = await this.deps.sessions.send(ownerId, sessionId, text);
      await this.deps.tasks.updateOne(
        { _id: context.taskId, ownerId },
        {
          $set: { sessionId, turnId },
          $setOnInsert: { contextId: context.contextId, task: JSON.stringify(context.task ?? {}), updatedAt: new Date() },
        },
        { upsert: true },
      );
      follower = new TurnFollower(sessionId, turnId);
      working("Started in Delegate");
      for (const event of early.splice(0)) follower.next(event).forEach(show);
      await done;
    } finally {
      clearInterval(heartbeat);
      stop();
    }
  }
}

/** From the first line only: another Delegate sends the task, then its context under headings. */
function titleOf(text: string): string {
  const words = (text.split("\n", 1)[0] ?? "").split(/\s+/).filter(Boolean).slice(0, TITLE_WORDS).join(" ");
  return `A2A: ${words.length > TITLE_CHARS ? `${words.slice(0, TITLE_CHARS - 1)}…` : words}`;
}
