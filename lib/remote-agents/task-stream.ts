import type { RemoteArtifact, RemoteState, RemoteUpdate } from "./transport";

/**
 * A remote agent's task, folded from what its stream says into what a local run shows: its
 * status messages and messages become steps (one each, timed), each artifact a step of its
 * own that streams as its chunks arrive, and the answer its parent reads is the artifacts'
 * text (under their names when there are several), else the last message. Pure: what it
 * shows leaves through `FoldOutput`, the I/O is run-remote.ts's.
 *
 * A remote agent is a stranger: every figure it could inflate (a message, the answer, the
 * number of steps) is bounded, and going past a bound ends the fold with `limit`.
 */

export interface FoldOutput {
  stepStart(step: number): void;
  text(step: number, offset: number, text: string): void;
  /** `steps`: how many steps the run has had, this one included. */
  stepEnd(steps: number): void;
}

export interface FoldLimits {
  /** The artifacts' text together, which is the answer. */
  maxAnswerChars: number;
  /** One status message or message (longer ones are cut, with a note). */
  maxMessageChars: number;
  /** Steps one task may show; an endless stream ends here. */
  maxSteps: number;
}

export const DEFAULT_FOLD_LIMITS: FoldLimits = { maxAnswerChars: 200_000, maxMessageChars: 8_000, maxSteps: 500 };

/** How the task stands when its stream ends or pauses. */
export type RemoteOutcome =
  | { kind: "completed"; answer: string }
  | { kind: "failed"; message: string }
  | { kind: "canceled" }
  | { kind: "input-required"; question: string }
  | { kind: "limit"; message: string };

const ENDED: ReadonlySet<RemoteState> = new Set(["completed", "failed", "canceled", "rejected", "input-required", "auth-required"]);

/** States whose message says why the task stopped rather than what it found. */
const NOT_AN_ANSWER: ReadonlySet<RemoteState> = new Set(["failed", "canceled", "rejected", "input-required", "auth-required"]);

export class RemoteTaskFold {
  taskId: string | undefined;
  contextId: string | undefined;
  private state: RemoteState = "submitted";
  private steps = 0;
  /** The step that streams an artifact, while its chunks arrive. */
  private open: { artifactId: string; step: number; length: number } | undefined;
  private readonly artifacts = new Map<string, { name?: string; text: string }>();
  private answerChars = 0;
  private lastMessage = "";
  private lastStatusText = "";
  private stopped: RemoteOutcome | undefined;
  /** Resumed after a question, until the remote says how it goes on. */
  private resumed = false;

  constructor(
    private readonly out: FoldOutput,
    private readonly limits: FoldLimits = DEFAULT_FOLD_LIMITS,
  ) {}

  /** Set once the task reached a state that ends (or pauses) it, or went past a limit. */
  get outcome(): RemoteOutcome | undefined {
    if (this.stopped) return this.stopped;
    switch (this.state) {
      case "completed":
        return { kind: "completed", answer: this.answer() };
      case "failed":
      case "rejected":
        return {
          kind: "failed",
          message:
            this.lastStatusText || `The remote agent ${this.state === "failed" ? "failed" : "rejected the task"} without saying why.`,
        };
      case "canceled":
        return { kind: "canceled" };
      case "input-required":
        return { kind: "input-required", question: this.lastStatusText || "The remote agent needs more input." };
      case "auth-required":
        return { kind: "failed", message: "The remote agent asked for authorization Delegate cannot give it in the middle of a task." };
      default:
        return undefined;
    }
  }

  /** Folds one update in; a task that ended (or paused for input) takes no more until it is resumed. */
  apply(update: RemoteUpdate): void {
    if (this.stopped || ENDED.has(this.state)) return;
    if ("taskId" in update && update.taskId) this.taskId = update.taskId;
    if ("contextId" in update && update.contextId) this.contextId = update.contextId;
    switch (update.kind) {
      case "task":
        for (const artifact of update.artifacts) if (!this.artifacts.has(artifact.artifactId)) this.artifact(artifact, false, true);
        // A stream that answers a question opens with the task as it was: still waiting for that answer.
        if (this.resumed && update.state === "input-required") return;
        this.status(update.state, update.text);
        return;
      case "status":
        this.resumed = false;
        this.status(update.state, update.text);
        return;
      case "artifact":
        this.artifact(update.artifact, update.append, update.lastChunk);
        return;
      case "message":
        this.message(update.text);
        this.lastMessage = this.lastStatusText = update.text;
        return;
    }
  }

  /** Resumes a task paused for input: its next updates continue the same run. */
  resume(): void {
    if (this.state !== "input-required") return;
    this.state = "working";
    this.resumed = true;
  }

  /** The stream ended: the outcome, or why a stream that ended without one is an error. */
  ended(): RemoteOutcome {
    this.closeArtifact();
    // An agent may answer with a message alone, no task: that message is its answer.
    if (!this.outcome && !this.taskId && this.lastMessage) return { kind: "completed", answer: this.lastMessage };
    return this.outcome ?? { kind: "failed", message: "The remote agent closed its stream before the task finished." };
  }

  private status(state: RemoteState, text: string | undefined): void {
    if (state !== "unknown") this.state = state;
    if (text) {
      this.message(text);
      this.lastStatusText = text;
      if (!NOT_AN_ANSWER.has(state)) this.lastMessage = text;
    }
  }

  /** A message is one step: started, written and ended at once. */
  private message(text: string): void {
    this.closeArtifact();
    const step = this.newStep();
    if (step === undefined) return;
    const cut = text.length > this.limits.maxMessageChars;
    this.out.text(step, 0, cut ? `${text.slice(0, this.limits.maxMessageChars)}\n\n[… cut: ${text.length} characters]` : text);
    this.out.stepEnd(this.steps);
  }

  private artifact(artifact: RemoteArtifact, append: boolean, lastChunk: boolean): void {
    const known = this.artifacts.get(artifact.artifactId);
    this.answerChars += artifact.text.length - (append || !known ? 0 : known.text.length);
    if (this.answerChars > this.limits.maxAnswerChars) {
      this.stopped = { kind: "limit", message: `The remote agent sent more than ${this.limits.maxAnswerChars} characters of artifacts.` };
      this.closeArtifact();
      return;
    }
    const text = append && known ? known.text + artifact.text : artifact.text;
    this.artifacts.set(artifact.artifactId, { name: artifact.name ?? known?.name, text });
    if (this.open?.artifactId !== artifact.artifactId || !append) {
      this.closeArtifact();
      const step = this.newStep();
      if (step === undefined) return;
      this.open = { artifactId: artifact.artifactId, step, length: 0 };
      const heading = artifact.name ? `**${artifact.name}**\n\n` : "";
      this.write(heading + text);
    } else this.write(artifact.text);
    if (lastChunk) this.closeArtifact();
  }

  private write(text: string): void {
    if (!this.open || !text) return;
    this.out.text(this.open.step, this.open.length, text);
    this.open.length += text.length;
  }

  private closeArtifact(): void {
    if (!this.open) return;
    this.open = undefined;
    this.out.stepEnd(this.steps);
  }

  private newStep(): number | undefined {
    if (this.steps >= this.limits.maxSteps) {
      this.stopped = { kind: "limit", message: `The remote agent sent more than ${this.limits.maxSteps} updates for one task.` };
      return undefined;
    }
    const step = this.steps++;
    this.out.stepStart(step);
    return step;
  }

  private answer(): string {
    const texts = [...this.artifacts.values()].filter((a) => a.text.trim().length > 0);
    if (texts.length === 0) return this.lastMessage;
    if (texts.length === 1) return texts[0]!.text;
    return texts.map((a, i) => `## ${a.name ?? `Artifact ${i + 1}`}\n\n${a.text}`).join("\n\n");
  }
}
