import type { RemoteAgentRef } from "./remote-ref";

/**
 * The port between a remote agent's run (pure, lib/) and the A2A client (I/O, server/):
 * what a remote task said, in Delegate's terms, whatever the wire version.
 */

/** A task's state as A2A names it (lower-case, the 0.3 spelling); "unknown" for anything else. */
export type RemoteState =
  "submitted" | "working" | "input-required" | "auth-required" | "completed" | "failed" | "canceled" | "rejected" | "unknown";

/** An artifact's parts as text: text parts as they are, data parts as JSON, files as a line naming them. */
export interface RemoteArtifact {
  artifactId: string;
  name?: string;
  text: string;
}

export type RemoteUpdate =
  /** The task as a whole (the first answer of a stream, or a non-streaming answer). */
  | { kind: "task"; taskId: string; contextId: string; state: RemoteState; text?: string; artifacts: RemoteArtifact[] }
  /** A status change; `text` is the status message's text, if it had one. */
  | { kind: "status"; taskId: string; contextId: string; state: RemoteState; text?: string; final: boolean }
  /** An artifact or a chunk of one: `append` adds to the artifact of that id, `lastChunk` ends it. */
  | { kind: "artifact"; taskId: string; artifact: RemoteArtifact; append: boolean; lastChunk: boolean }
  /** A message from the agent: its whole answer when it answers without a task, or a step of one. */
  | { kind: "message"; taskId?: string; contextId?: string; text: string };

/** What the master's model reads of a remote agent, from its card. */
export interface RemoteAgentCard {
  name: string;
  /** Its description and skills, bounded (see card.ts). */
  description: string;
  /** Whether the card says it streams (`capabilities.streaming`). */
  streaming: boolean;
}

export interface RemoteCallOptions {
  /**
   * An operator's definition (from the definitions file): its card's host may be private
   * (an agent on the same network). A definition made in the app reaches only public
   * addresses and the hosts of A2A_ALLOWED_HOSTS.
   */
  trusted: boolean;
  signal: AbortSignal;
  /** The definition's name: a remote agent people sign in to (`oauth`) keeps each sign-in under it. */
  agent?: string;
  /** The person whose sign-in the call carries (the chat's owner); absent, an `oauth` agent is refused. */
  ownerId?: string;
}

/** One task on a remote agent, as started by `RemoteAgentTransport.start`. */
export interface RemoteTask {
  /** What the remote streams, in order; ends when the remote closes the stream. Throws RemoteAgentError on a transport or protocol failure. */
  updates: AsyncIterable<RemoteUpdate>;
  /** Asks the remote to cancel the task (tasks/cancel); resolves once it answered or failed, never throws. */
  cancel(): Promise<void>;
  /** Sends another message into the same task (an answer to input-required, a follow-up) and streams what follows. */
  send(text: string, signal: AbortSignal): AsyncIterable<RemoteUpdate>;
}

export interface RemoteAgentTransport {
  /** Reads and checks the agent card (cached a few minutes). Throws RemoteAgentError. */
  describe(ref: RemoteAgentRef, options: RemoteCallOptions): Promise<RemoteAgentCard>;
  /** Sends the first message of a new task and streams its answer. Throws RemoteAgentError. */
  start(ref: RemoteAgentRef, text: string, options: RemoteCallOptions): Promise<RemoteTask>;
}

/** A remote agent that could not be reached, or answered what A2A does not allow; `message` is for the person. */
export class RemoteAgentError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "RemoteAgentError";
  }
}
