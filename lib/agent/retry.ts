import { toolOutputOf } from "@/lib/contracts";
import type { ModelToolCall } from "@/lib/model/types";
import type { ToolOutcome } from "./agent-loop";
import type { AgentNode, FailedRun, RetryWindows, RunHost } from "./agent-node";
import { SUBAGENT_TOOL_NAME } from "./definitions";
import type { SubagentArgs } from "./subagent-tool";

/**
 * Retry of a failed, killed or timed-out subagent inside the turn that ran it.
 *
 * A parent reads its step's results only once every call of the step has returned (the
 * agent loop runs them together). Until then the failed call is "open": a retry started
 * now runs the same definition for the same parent as a new run (its own panel, a new
 * call in the same step, `retryOf` naming the failed run), and when the step settles its
 * clean result is what the parent's model reads under the original call's id. Siblings
 * are never touched. Once the parent has read the failed result the call is closed and a
 * retry is refused: slipping a result into a conversation that has already reasoned past
 * the failure (perhaps spawned a replacement, perhaps answered around it) would leave the
 * model with two stories; after the turn ends, Retry starts a new turn instead, where the
 * master reads the new result as a fresh tool result (server/sessions).
 */

export type RetryResult =
  { ok: true; runId: string } | { ok: false; reason: "not_found" | "not_retryable" | "already_read"; message: string };

/** One parent call whose result its parent has not read yet. */
interface OpenCall {
  open: boolean;
  /** The retry still running, if any. */
  running?: Promise<void>;
  /** The newest retry's outcome: what the parent will read. */
  outcome?: ToolOutcome;
}

interface Entry extends FailedRun {
  executor: RunHost;
  step: number;
  window: OpenCall;
  retriedAs?: string;
}

export class RetryBook implements RetryWindows {
  private readonly windows = new WeakMap<AgentNode, Map<string, OpenCall>>();
  private readonly failed = new Map<string, Entry>();

  /** A run ended without an answer while its parent's step still runs: it may be retried until the step settles. */
  recordFailure(executor: RunHost, run: FailedRun, window?: OpenCall): void {
    let calls = this.windows.get(run.parent);
    if (!calls) this.windows.set(run.parent, (calls = new Map()));
    let open = window;
    if (!open) {
      // A model may reuse a call id in a later step: each failure of an original call opens a fresh window.
      open = { open: true };
      calls.set(run.call.id, open);
    }
    const step = Math.max(0, run.parent.state.steps - 1);
    this.failed.set(run.runId, { ...run, executor, step, window: open });
  }

  retry(
    runId: string,
    task: string | undefined,
    processStatus: (runId: string) => "running" | "success" | "error" | undefined,
  ): RetryResult {
    const entry = this.failed.get(runId);
    if (!entry) {
      const status = processStatus(runId);
      if (status === undefined) return { ok: false, reason: "not_found", message: `Run ${runId} was not found in this turn.` };
      if (status === "running")
        return { ok: false, reason: "not_retryable", message: `Run ${runId} is still running; kill it first if you want to run it again.` };
      if (status === "success")
        return {
          ok: false,
          reason: "not_retryable",
          message: `Run ${runId} completed; only a failed, killed or timed-out run can be retried.`,
        };
      return {
        ok: false,
        reason: "not_retryable",
        message: `Run ${runId} is still handing its result to its parent; try again in a moment.`,
      };
    }
    if (entry.retriedAs)
      return {
        ok: false,
        reason: "not_retryable",
        message: `Run ${runId} was already retried as ${entry.retriedAs}; retry that run instead.`,
      };
    if (!entry.window.open || entry.parent.signal.aborted) {
      return {
        ok: false,
        reason: "already_read",
        message: entry.parent.signal.aborted
          ? `Run ${runId} cannot be retried now: the agent that called it has stopped. Retry it when the turn has ended; that starts a new turn.`
          : `Its parent has already read the failed result of run ${runId} and moved on. Retry it when the turn has ended; that starts a new turn in which the agent gets the new result.`,
      };
    }
    return { ok: true, runId: this.start(entry, task) };
  }

  private start(entry: Entry, task: string | undefined): string {
    const { executor, parent, window } = entry;
    const runId = executor.deps.newId();
    const args: SubagentArgs = { ...entry.args, ...(task ? { task } : {}) };
    const call: ModelToolCall = { id: executor.deps.newId(), name: SUBAGENT_TOOL_NAME, arguments: JSON.stringify(args) };
    entry.retriedAs = runId;
    announceCall(executor, parent, entry.step, call);
    parent.activeChildren++;
    window.running = (async () => {
      try {
        const outcome = await executor.runChild({
          parent,
          call,
          args,
          definition: entry.definition,
          depth: parent.depth + 1,
          runId,
          retryOf: entry.runId,
        });
        announceResult(executor, parent, call.id, outcome);
        window.outcome = { content: outcome.content, status: outcome.status };
        if (outcome.endReason !== "completed") {
          this.recordFailure(executor, { runId, parent, call: entry.call, args, definition: entry.definition }, window);
        }
      } catch (error) {
        // runChild reports failures as outcomes; a throw here is a bug, and the parent keeps the result it had.
        executor.deps.log?.warn("a retried subagent run failed unexpectedly", { runId, error: String(error) });
      } finally {
        parent.activeChildren--;
        // No retry of this run can have started yet: its failure was recorded just above, in this same step.
        window.running = undefined;
      }
    })();
    return runId;
  }

  /**
   * The parent's step has returned: wait for retries of its calls still running (a retry
   * of a retry included), then close them and hand back what the parent must read instead.
   */
  async settle(parent: AgentNode, calls: readonly ModelToolCall[]): Promise<Map<string, ToolOutcome>> {
    const mine = this.windows.get(parent);
    const out = new Map<string, ToolOutcome>();
    if (!mine) return out;
    const windows = () =>
      calls.map((c) => [c.id, mine.get(c.id)] as const).filter((w): w is readonly [string, OpenCall] => w[1] !== undefined);
    for (;;) {
      const running = windows()
        .map(([, w]) => w.running)
        .filter((r) => r !== undefined);
      if (running.length === 0) break;
      await Promise.all(running);
    }
    // Synchronous from the last check to here: no retry can slip in between.
    for (const [callId, window] of windows()) {
      window.open = false;
      mine.delete(callId);
      if (window.outcome) out.set(callId, window.outcome);
    }
    return out;
  }
}

/** The retry's own call, in the parent's step beside the call it retries: audit only, never in a model's context. */
function announceCall(executor: RunHost, parent: AgentNode, step: number, call: ModelToolCall): void {
  const at = new Date(executor.deps.now()).toISOString();
  parent.emit({ kind: "tool_call", step, callId: call.id, name: call.name, parameters: call.arguments, at });
}

function announceResult(executor: RunHost, parent: AgentNode, callId: string, outcome: ToolOutcome): void {
  const at = new Date(executor.deps.now()).toISOString();
  parent.emit({ kind: "tool_result", callId, ...toolOutputOf(outcome.content), status: outcome.status, at });
}

/** A Retry after its turn ended: the new turn opens by running the subagent again (see runtime.ts). */
export interface TurnRetry {
  /** The failed run, in an earlier turn. */
  retryOf: string;
  /** The original call's arguments, the task possibly edited. */
  args: SubagentArgs;
}

/**
 * The retry turn's first master step: a `subagent` call with the retried arguments, made
 * without a model request, whose clean result enters the master's context exactly as a
 * result of its own call would (the rebuild from history sees the same step).
 */
export async function retryFirstStep(
  executor: RunHost,
  master: AgentNode,
  retry: TurnRetry,
  clean: (content: string) => string,
): Promise<void> {
  const call: ModelToolCall = { id: executor.deps.newId(), name: SUBAGENT_TOOL_NAME, arguments: JSON.stringify(retry.args) };
  master.state.steps = 1;
  announceCall(executor, master, 0, call);
  const first = await executor.spawn(master, call, retry.retryOf);
  const settled = executor.scope.retries ? await executor.scope.retries.settle(master, [call]) : new Map<string, ToolOutcome>();
  const outcome = settled.get(call.id) ?? first;
  const content = clean(outcome.content);
  announceResult(executor, master, call.id, { content, status: outcome.status });
  master.state.messages.push(
    { role: "assistant", content: "", toolCalls: [call] },
    { role: "tool", content, toolCallId: call.id, toolName: call.name },
  );
}
