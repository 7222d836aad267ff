import {
  MAX_INPUTS_PER_CALL,
  type AgentData,
  type InputAnswer,
  type InputContent,
  type InputForm,
  type InputRequest,
} from "@/lib/contracts";
import { formatWait } from "./approval-gate";
import { checkInputAnswer } from "./input-form";
import type { ControlResult } from "./run-registry";

/**
 * The questions one turn's tool calls are waiting on, beside its ApprovalGate and with the
 * same rules: only the asking call waits, each question ends exactly once (answered or
 * declined by a person, expired after `timeoutMs`, cancelled when its run stops) and each
 * end is published, so the question on the call is the record of what happened. An
 * answer that does not fit the form is refused and the question keeps waiting.
 */

/** Abort reasons that say why a question ended unanswered when its run did not stop. */
export const CALL_ENDED = "call_ended";
export const QUESTION_WITHDRAWN = "question_withdrawn";

function unansweredNote(reason: unknown): string {
  if (reason === CALL_ENDED) return "The call ended before anyone answered.";
  if (reason === QUESTION_WITHDRAWN) return "The tool withdrew the question before anyone answered.";
  return "The run stopped before anyone answered.";
}

export interface InputRequestInput {
  /** Publishes the question as the asking agent's own doing (see AgentNode.emit). */
  emit: (data: AgentData) => void;
  runId: string | null;
  callId: string;
  /** Already checked (parseInputForm). `signal` ends the wait: the run stopped, or see CALL_ENDED and QUESTION_WITHDRAWN. */
  message: string;
  form: InputForm;
  signal: AbortSignal;
  /** Called when the question starts waiting; its result, when it stops (watchdogs). */
  onWait?: () => () => void;
}

/** A person's answer as the socket carries it; `by` is the identity id of who answered. */
export interface PersonAnswer {
  action: "accept" | "decline";
  content?: InputContent;
  by: string;
}

export interface InputGateOptions {
  timeoutMs: number;
  now: () => number;
}

interface Waiter {
  runId: string | null;
  callId: string;
  form: InputForm;
  settle: (answer: PersonAnswer & { content?: InputContent }) => void;
}

export class InputGate {
  private readonly waiting = new Set<Waiter>();
  /** How many questions each call asked (`runId|callId`): the next one's index. */
  private readonly asked = new Map<string, number>();

  constructor(private readonly options: InputGateOptions) {}

  /** Asks a person; resolves with their answer, or `cancel` when the run stopped or no one answered in time. */
  ask(input: InputRequestInput): Promise<InputAnswer> {
    const { now, timeoutMs } = this.options;
    const key = `${input.runId ?? ""}|${input.callId}`;
    const index = this.asked.get(key) ?? 0;
    if (index >= MAX_INPUTS_PER_CALL) return Promise.resolve({ action: "cancel" });
    this.asked.set(key, index + 1);
    const publish = (request: InputRequest) => input.emit({ kind: "input", callId: input.callId, index, input: request });
    const iso = () => new Date(now()).toISOString();
    const pending: InputRequest = { state: "pending", requestedAt: iso(), message: input.message, form: input.form };
    return new Promise<InputAnswer>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      let release: (() => void) | undefined;
      const end = (request: InputRequest, answer: InputAnswer) => {
        if (!this.waiting.has(waiter)) return;
        this.waiting.delete(waiter);
        clearTimeout(timer);
        input.signal.removeEventListener("abort", onAbort);
        release?.();
        publish(request);
        resolve(answer);
      };
      const waiter: Waiter = {
        runId: input.runId,
        callId: input.callId,
        form: input.form,
        settle: ({ action, content, by }) => {
          const answered = { ...pending, answeredAt: iso(), answeredBy: by };
          if (action === "accept")
            end({ ...answered, state: "accepted", content: content ?? {} }, { action: "accept", content: content ?? {} });
          else end({ ...answered, state: "declined" }, { action: "decline" });
        },
      };
      const onAbort = () =>
        end({ ...pending, state: "cancelled", answeredAt: iso(), note: unansweredNote(input.signal.reason) }, { action: "cancel" });
      this.waiting.add(waiter);
      publish(pending);
      if (input.signal.aborted) return onAbort();
      input.signal.addEventListener("abort", onAbort, { once: true });
      release = input.onWait?.();
      timer = setTimeout(
        () =>
          end(
            { ...pending, state: "expired", answeredAt: iso(), note: `No one answered within ${formatWait(timeoutMs)}.` },
            { action: "cancel" },
          ),
        timeoutMs,
      );
    });
  }

  /**
   * A person's answer to the question call `callId` (of run `runId` when given) waits on.
   * Refused when nothing by that id waits, when it is ambiguous, or when the fields do not
   * fit the form (the question then keeps waiting).
   */
  answer(callId: string, runId: string | null | undefined, answer: PersonAnswer): ControlResult {
    const matches = [...this.waiting].filter((w) => w.callId === callId && (runId === undefined || w.runId === runId));
    if (matches.length === 0) return { ok: false, message: `No question is waiting for an answer on call ${callId}.` };
    if (matches.length > 1) return { ok: false, code: "bad_request", message: `Several calls ${callId} wait; say which run's.` };
    const waiter = matches[0]!;
    if (answer.action === "decline") {
      waiter.settle({ action: "decline", by: answer.by });
      return { ok: true };
    }
    const checked = checkInputAnswer(waiter.form, answer.content ?? {});
    if (!checked.ok) return { ok: false, code: "bad_request", message: checked.error };
    waiter.settle({ action: "accept", content: checked.content, by: answer.by });
    return { ok: true };
  }
}
