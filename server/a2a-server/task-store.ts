import { TaskState, type ListTasksRequest, type ListTasksResponse, type Task } from "@a2a-js/sdk";
import type { ServerCallContext, TaskStore } from "@a2a-js/sdk/server";
import type { Models } from "@/models";

/** Tasks one `tasks/list` answers at most. */
const LIST_MAX = 100;

/** The turn a task runs as. */
export interface TaskTurn {
  ownerId: string;
  sessionId: string;
  turnId: string;
}

const ENDED_STATES: readonly TaskState[] = [
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
];

/**
 * The SDK's task store in MongoDB, scoped to the caller: a task is saved under the
 * token's owner and loaded only for them, so another owner's task id reads as no task
 * (the SDK answers "task not found"). Stored, a task outlives the process and is read by
 * any process.
 */
export class MongoTaskStore implements TaskStore {
  /**
   * `onCanceled`: a running task was saved as canceled. The SDK does that itself, without
   * the executor, when the task runs in another process (the bus is there): the turn is
   * then cancelled through the session service, which reaches the process running it.
   */
  constructor(
    private readonly model: Models["A2ATask"],
    private readonly onCanceled?: (turn: TaskTurn) => void,
  ) {}

  async save(task: Task, context: ServerCallContext): Promise<void> {
    const ownerId = ownerOf(context);
    if (!ownerId) throw new Error("an A2A task was saved without a signed-in caller");
    // The owner is in the filter: a task id another owner holds fails on the unique _id instead of changing hands.
    const before = await this.model
      .findOneAndUpdate(
        { _id: task.id, ownerId },
        { $set: { task: JSON.stringify(task), updatedAt: new Date() }, $setOnInsert: { contextId: task.contextId } },
        { upsert: true, returnDocument: "before" },
      )
      .lean<{ task: string; sessionId: string | null; turnId: string | null }>();
    if (task.status?.state !== TaskState.TASK_STATE_CANCELED || !before?.sessionId || !before.turnId) return;
    const was = (JSON.parse(before.task) as Partial<Task>).status?.state;
    if (was !== undefined && ENDED_STATES.includes(was)) return;
    this.onCanceled?.({ ownerId, sessionId: before.sessionId, turnId: before.turnId });
  }

  async load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    const ownerId = ownerOf(context);
    if (!ownerId) return undefined;
    const record = await this.model.findOne({ _id: taskId, ownerId }, { task: 1 }).lean<{ task: string }>();
    return record ? (JSON.parse(record.task) as Task) : undefined;
  }

  async list(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    const ownerId = ownerOf(context);
    const pageSize = Math.min(Math.max(params.pageSize ?? 50, 1), LIST_MAX);
    if (!ownerId) return { tasks: [], nextPageToken: "", pageSize, totalSize: 0 };
    const filter = { ownerId, ...(params.contextId ? { contextId: params.contextId } : {}) };
    const records = await this.model.find(filter, { task: 1 }).sort({ updatedAt: -1 }).limit(pageSize).lean<{ task: string }[]>();
    // The state lives inside the task's JSON text: filtered here, within the page read.
    const tasks = records.map((r) => JSON.parse(r.task) as Task).filter((t) => !params.status || t.status?.state === params.status);
    return { tasks, nextPageToken: "", pageSize, totalSize: tasks.length };
  }
}

/** The token's owner the request was made for (the A2A route's user builder sets it). */
export function ownerOf(context: ServerCallContext | undefined): string | undefined {
  const user = context?.user;
  return user?.isAuthenticated ? user.userName : undefined;
}
