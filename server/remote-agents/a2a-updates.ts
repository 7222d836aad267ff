import { TaskState, type Artifact, type Message, type Part, type StreamResponse, type Task } from "@a2a-js/sdk";
import { RemoteAgentError, type RemoteArtifact, type RemoteState, type RemoteUpdate } from "@/lib/remote-agents/transport";

/**
 * What one item of an A2A stream (or a non-streaming answer) says, in Delegate's terms
 * (lib/remote-agents/transport.ts). The SDK has already read the wire, 1.0 or 0.3, into
 * its proto-style shapes; what it could not place arrives as an empty payload, which is
 * refused here as a protocol failure.
 */

/** Most characters of one update's text (a status message, an artifact chunk). */
export const UPDATE_TEXT_MAX = 2 ** 20;

const STATES: Record<TaskState, RemoteState> = {
  [TaskState.TASK_STATE_SUBMITTED]: "submitted",
  [TaskState.TASK_STATE_WORKING]: "working",
  [TaskState.TASK_STATE_INPUT_REQUIRED]: "input-required",
  [TaskState.TASK_STATE_AUTH_REQUIRED]: "auth-required",
  [TaskState.TASK_STATE_COMPLETED]: "completed",
  [TaskState.TASK_STATE_FAILED]: "failed",
  [TaskState.TASK_STATE_CANCELED]: "canceled",
  [TaskState.TASK_STATE_REJECTED]: "rejected",
  [TaskState.TASK_STATE_UNSPECIFIED]: "unknown",
  [TaskState.UNRECOGNIZED]: "unknown",
};

/**
 * States after which the remote's stream says nothing more: the terminal ones and
 * input-required (the remote waits for a new message, which opens a new stream).
 */
const STREAM_ENDS = new Set<RemoteState>(["completed", "failed", "canceled", "rejected", "input-required"]);

export function remoteState(state: TaskState | undefined): RemoteState {
  return state === undefined ? "unknown" : (STATES[state] ?? "unknown");
}

/** A part as text: text as it is, data as JSON, a file as a line naming it. */
export function partText(part: Part): string {
  const content = part.content;
  const name = part.filename || "unnamed";
  const type = part.mediaType || "unknown type";
  switch (content?.$case) {
    case "text":
      return content.value;
    case "data":
      return JSON.stringify(content.value ?? null);
    case "url":
      return `[file: ${name} (${type}) ${content.value}]`;
    case "raw":
      return `[file: ${name} (${type}), ${content.value.length} bytes]`;
    default:
      return "";
  }
}

function tooLarge(host: string): RemoteAgentError {
  return new RemoteAgentError(`The remote agent at ${host} sent an update with more than ${UPDATE_TEXT_MAX / 2 ** 20} MB of text`);
}

/**
 * The parts' texts: text parts joined as they are (the chunks an agent appended to an
 * artifact are parts of it, and read as one text), data and files each on a line of their
 * own. Refused past UPDATE_TEXT_MAX before it is built.
 */
function partsText(parts: readonly Part[], host: string): string {
  let text = "";
  let afterLine = false;
  for (const part of parts) {
    const piece = partText(part);
    const line = part.content?.$case !== "text";
    const separator = text !== "" && (line || afterLine) && !text.endsWith("\n") ? "\n" : "";
    if (text.length + separator.length + piece.length > UPDATE_TEXT_MAX) throw tooLarge(host);
    text += separator + piece;
    afterLine = line;
  }
  return text;
}

function messageText(message: Message | undefined, host: string): string | undefined {
  const text = message ? partsText(message.parts, host) : "";
  return text === "" ? undefined : text;
}

function artifactOf(artifact: Artifact | undefined, host: string): RemoteArtifact {
  if (!artifact?.artifactId) throw malformed(host, "an artifact without an id");
  return { artifactId: artifact.artifactId, ...(artifact.name ? { name: artifact.name } : {}), text: partsText(artifact.parts, host) };
}

function malformed(host: string, what: string): RemoteAgentError {
  return new RemoteAgentError(`The remote agent at ${host} answered something A2A does not allow: ${what}`);
}

function taskUpdate(task: Task, host: string): RemoteUpdate {
  if (!task.id) throw malformed(host, "a task without an id");
  const text = messageText(task.status?.message, host);
  return {
    kind: "task",
    taskId: task.id,
    contextId: task.contextId,
    state: remoteState(task.status?.state),
    ...(text !== undefined ? { text } : {}),
    artifacts: task.artifacts.map((artifact) => artifactOf(artifact, host)),
  };
}

function messageUpdate(message: Message, host: string): RemoteUpdate {
  return {
    kind: "message",
    ...(message.taskId ? { taskId: message.taskId } : {}),
    ...(message.contextId ? { contextId: message.contextId } : {}),
    text: messageText(message, host) ?? "",
  };
}

/** One stream item as an update; throws RemoteAgentError for an item A2A does not allow. */
export function toRemoteUpdate(response: StreamResponse, host: string): RemoteUpdate {
  const payload = response.payload;
  switch (payload?.$case) {
    case "task":
      return taskUpdate(payload.value, host);
    case "message":
      return messageUpdate(payload.value, host);
    case "statusUpdate": {
      const { taskId, contextId, status } = payload.value;
      if (!taskId) throw malformed(host, "a status update without a task id");
      const state = remoteState(status?.state);
      const text = messageText(status?.message, host);
      return { kind: "status", taskId, contextId, state, ...(text !== undefined ? { text } : {}), final: STREAM_ENDS.has(state) };
    }
    case "artifactUpdate": {
      const { taskId, artifact, append, lastChunk } = payload.value;
      if (!taskId) throw malformed(host, "an artifact update without a task id");
      return { kind: "artifact", taskId, artifact: artifactOf(artifact, host), append, lastChunk };
    }
    default:
      throw malformed(host, "a stream item that is neither a task, a message, a status nor an artifact");
  }
}

/** A non-streaming answer (SendMessage): a task or a message. */
export function answerUpdate(answer: Task | Message, host: string): RemoteUpdate {
  return "messageId" in answer ? messageUpdate(answer, host) : taskUpdate(answer, host);
}
