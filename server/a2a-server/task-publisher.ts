import { randomUUID } from "node:crypto";
import { AgentEvent, type ExecutionEventBus, type RequestContext } from "@a2a-js/sdk/server";
import { Role, TaskState, type Message, type Part, type Task } from "@a2a-js/sdk";

/** One task's events in the SDK's shapes, published on its bus. */
export class TaskPublisher {
  constructor(
    private readonly context: Pick<RequestContext, "taskId" | "contextId" | "userMessage">,
    private readonly bus: ExecutionEventBus,
  ) {}

  /** Every answer starts with the task (the SDK refuses a stream that does not). */
  task(existing: Task | undefined): void {
    this.bus.publish(
      AgentEvent.task(
        existing ?? {
          id: this.context.taskId,
          contextId: this.context.contextId,
          status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() },
          artifacts: [],
          history: [this.context.userMessage],
          metadata: undefined,
        },
      ),
    );
  }

  status(state: TaskState, text?: string): void {
    const { taskId, contextId } = this.context;
    const message: Message | undefined = text
      ? {
          messageId: randomUUID(),
          contextId,
          taskId,
          role: Role.ROLE_AGENT,
          parts: [textPart(text)],
          metadata: undefined,
          extensions: [],
          referenceTaskIds: [],
        }
      : undefined;
    this.bus.publish(
      AgentEvent.statusUpdate({ taskId, contextId, status: { state, message, timestamp: new Date().toISOString() }, metadata: undefined }),
    );
  }

  artifact(name: string, text: string): void {
    this.bus.publish(
      AgentEvent.artifactUpdate({
        taskId: this.context.taskId,
        contextId: this.context.contextId,
        artifact: { artifactId: name, name, description: "", parts: [textPart(text)], metadata: undefined, extensions: [] },
        append: false,
        lastChunk: true,
        metadata: undefined,
      }),
    );
  }
}

function textPart(text: string): Part {
  return { content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "text/plain" };
}

/** A message's text: its text parts joined; files and data are not read. */
export function textOf(message: Message | undefined): string {
  return (message?.parts ?? []).map((part) => (part.content?.$case === "text" ? part.content.value : "")).join("");
}
