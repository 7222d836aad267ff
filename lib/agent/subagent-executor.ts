import type { AgentEvent } from "@/lib/contracts";
import type { ChatMessage, ModelToolCall } from "@/lib/model/types";
import { ToolError, type Tool, type ToolContext } from "@/lib/tools/types";
import type { ToolInvoker, ToolOutcome } from "./agent-loop";
import type { AgentNode, ChildOutcome, ChildSpec, ExecutorDeps, RunHost, TurnScope } from "./agent-node";
import { approvalReason, needsApproval } from "./approval-policy";
import { parseInputForm } from "./input-form";
import { CALL_ENDED, QUESTION_WITHDRAWN } from "./input-gate";
import { runChild } from "./child-run";
import { RETRYABLE_END_REASONS } from "./retry-plan";
import { SUBAGENT_TOOL_NAME, type SubagentDefinition } from "./definitions";
import { describeError } from "./model-step";
import { subagentArgsSchema, subagentToolSpec } from "./subagent-tool";
import { toolErrorStatus, toolErrorText, type ToolErrorCode } from "./tool-errors";
import { toolMatcher } from "./tool-patterns";
import { runWorkspaceCall } from "./workspace-call";

export type { AgentNode, ExecutorDeps, ExecutorLimits, TurnScope } from "./agent-node";

/**
 * Gives each agent its tool whitelist, validates `subagent` calls, enforces the depth and
 * active-children limits (each breach is a structured error result to the caller, never
 * a crash) and runs the child (see child-run.ts) whose events are forwarded as
 * `subagent_*` events. The lifecycle is described in docs/architecture.md ("Subagents").
 */

export class SubagentExecutor implements RunHost {
  constructor(
    readonly deps: ExecutorDeps,
    readonly scope: TurnScope,
  ) {}

  publish(event: AgentEvent): void {
    this.scope.publish(event);
  }

  runChild(spec: ChildSpec): Promise<ChildOutcome> {
    return runChild(this, spec);
  }

  /**
   * The tools an agent may call: a whitelist of names and patterns (`files.*`), or every
   * tool for the master. `requireApproval` (the definition's) adds tools whose calls wait
   * for a person.
   */
  invokerFor(node: AgentNode, allowed: readonly string[] | "all", requireApproval: readonly string[] = []): ToolInvoker {
    const permitted = toolMatcher(allowed);
    const available = typeof this.deps.tools === "function" ? this.deps.tools(this.scope.toolsFor) : this.deps.tools;
    const tools = available.filter((t) => permitted(t.spec.name));
    // Spawning is named outright: a pattern like `*` does not grant it.
    const canSpawn = (allowed === "all" || allowed.includes(SUBAGENT_TOOL_NAME)) && this.deps.definitions.length > 0;
    const specs = [...tools.map((t) => t.spec), ...(canSpawn ? [subagentToolSpec(this.deps.definitions)] : [])];
    return {
      specs,
      isExclusive: (call) => call.name === SUBAGENT_TOOL_NAME && this.definitionOf(call)?.parallelizable === false,
      settle: async (calls) => (this.scope.retries ? this.scope.retries.settle(node, calls) : new Map()),
      invoke: (call, context) => {
        const run = async (): Promise<ToolOutcome> => {
          if (call.name === SUBAGENT_TOOL_NAME && canSpawn) return this.spawn(node, call);
          const tool = tools.find((t) => t.spec.name === call.name);
          if (tool) {
            const gate = needsApproval(tool, requireApproval) ? this.approvalFor(node, tool, call, context) : undefined;
            // A question still waiting when the call returns ends with it.
            const callEnd = new AbortController();
            const askInput = this.askerFor(node, call, AbortSignal.any([context.signal, callEnd.signal]));
            try {
              return await runWorkspaceCall(tool, call, { ...this.toolContext(context.signal), askInput }, gate);
            } finally {
              callEnd.abort(CALL_ENDED);
            }
          }
          const names = specs.map((s) => s.name).join(", ") || "none";
          return refuse("unknown_tool", `Unknown tool "${call.name}". Tools available to you: ${names}.`);
        };
        const { telemetry } = this.scope;
        return telemetry ? telemetry.tool(node.run?.runId ?? null, call, run) : run();
      },
    };
  }

  /**
   * The wait before a call that needs approval: the preview (a diff for edits) first — an
   * edit that cannot apply goes back to the model and nobody is asked — then the request,
   * with the agent's own words before the call as its reason. Only a person's "approve"
   * lets the call run; a denial, an expiry or a stop is an error result the model reads.
   */
  private approvalFor(
    node: AgentNode,
    tool: Tool,
    call: ModelToolCall,
    context: { messages: readonly ChatMessage[]; signal: AbortSignal },
  ) {
    return async (args: unknown): Promise<ToolOutcome | undefined> => {
      const gate = this.scope.approvals;
      // Fail closed: a call that needs a person never runs where no one can be asked.
      if (!gate) return refuse("approval_denied", `"${call.name}" needs a person's approval, and no one can be asked here.`);
      let preview: string | undefined;
      try {
        preview = tool.preview ? await tool.preview(args, this.toolContext(context.signal)) : undefined;
      } catch (e) {
        return refuse("tool_failed", e instanceof ToolError ? e.message : `"${call.name}" failed: ${describeError(e)}`);
      }
      const asked = [...context.messages].reverse().find((m) => m.role === "assistant");
      const end = await gate.request({
        emit: node.emit,
        runId: node.run?.runId ?? null,
        callId: call.id,
        reason: approvalReason(asked?.content ?? ""),
        ...(preview !== undefined ? { preview } : {}),
        signal: context.signal,
        onWait: node.holdWatchdogs,
      });
      const { approval } = end;
      switch (end.state) {
        case "approved":
          return undefined;
        case "denied":
          return refuse(
            "approval_denied",
            `A person denied "${call.name}"${approval.denyReason ? `: ${approval.denyReason}` : " (no reason given)"}. Do not retry the same call; adapt your plan or say what you need.`,
          );
        case "expired":
          return refuse(
            "approval_denied",
            `"${call.name}" was not approved: ${approval.note ?? "no one answered in time."} Treat it as denied.`,
          );
        case "cancelled":
          return refuse("cancelled", `"${call.name}" was not run: the run stopped while it waited for approval.`);
      }
    };
  }

  /**
   * How a running call asks its person a question: the form is checked first (a tool's
   * form outside the subset is its error, nobody is asked), then the call waits on the
   * turn's InputGate like an approval, with the watchdogs above it held.
   */
  private askerFor(node: AgentNode, call: ModelToolCall, signal: AbortSignal): NonNullable<ToolContext["askInput"]> {
    return async (message, form, options) => {
      const gate = this.scope.inputs;
      if (!gate) throw new ToolError(`"${call.name}" asked a person a question, and no one can be asked here.`);
      const checked = parseInputForm(message, form);
      if (!checked.ok) throw new ToolError(checked.error);
      // The wait ends with the call or the run (their reason), or when the asker withdraws the question.
      const asked = new AbortController();
      const follow = (from: AbortSignal | undefined, reason: () => unknown) => {
        if (from?.aborted) asked.abort(reason());
        else from?.addEventListener("abort", () => asked.abort(reason()), { once: true });
      };
      follow(signal, () => signal.reason);
      follow(options?.signal, () => QUESTION_WITHDRAWN);
      return gate.ask({
        emit: node.emit,
        runId: node.run?.runId ?? null,
        callId: call.id,
        message: checked.message,
        form: checked.form,
        signal: asked.signal,
        onWait: node.holdWatchdogs,
      });
    };
  }

  /** What every tool call of the turn runs with, any agent's: the workspace, the person, the chat's attachments. */
  private toolContext(signal: AbortSignal): ToolContext {
    const { ownerId, attachments } = this.scope;
    return { workspaceDir: this.deps.workspaceDir, signal, ...(ownerId ? { ownerId } : {}), ...(attachments ? { attachments } : {}) };
  }

  private definitionOf(call: ModelToolCall): SubagentDefinition | undefined {
    try {
      const agent = (JSON.parse(call.arguments) as { agent?: unknown }).agent;
      return this.deps.definitions.find((d) => d.name === agent);
    } catch {
      return undefined;
    }
  }

  /** `retryOf`: this spawn re-runs that failed run (a Retry after its turn ended). */
  async spawn(parent: AgentNode, call: ModelToolCall, retryOf?: string): Promise<ToolOutcome> {
    let raw: unknown;
    try {
      raw = JSON.parse(call.arguments);
    } catch {
      return refuse("invalid_arguments", 'Arguments for "subagent" are not valid JSON.');
    }
    const parsed = subagentArgsSchema.safeParse(raw);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "(arguments)"}: ${i.message}`).join("; ");
      return refuse(
        "invalid_arguments",
        `Invalid arguments for "subagent": ${issues}. Expected { agent, task, objective?, artifactRefs? }.`,
      );
    }
    const args = parsed.data;
    const definition = this.deps.definitions.find((d) => d.name === args.agent);
    if (!definition) {
      const names = this.deps.definitions.map((d) => d.name).join(", ");
      return refuse("unknown_subagent", `Unknown subagent "${args.agent}". Available subagents: ${names}.`);
    }
    const { maxSpawnDepth, maxChildrenPerAgent } = this.deps.limits;
    const depth = parent.depth + 1;
    if (depth >= maxSpawnDepth) {
      return refuse(
        "depth_limit",
        `Spawn refused: this agent is at depth ${parent.depth} and the maximum spawn depth is ${maxSpawnDepth} (depths 0 to ${maxSpawnDepth - 1}). Do this step yourself with your own tools.`,
      );
    }
    if (parent.activeChildren >= maxChildrenPerAgent) {
      return refuse(
        "children_limit",
        `Spawn refused: this agent already has ${parent.activeChildren} active subagents (limit ${maxChildrenPerAgent}). Wait for their results, then spawn again.`,
      );
    }
    if (parent.signal.aborted) return refuse("cancelled", "Spawn refused: the run was stopped.");
    parent.activeChildren++;
    try {
      const outcome = await this.runChild({ parent, call, args, definition, depth, ...(retryOf ? { retryOf } : {}) });
      if (RETRYABLE_END_REASONS.includes(outcome.endReason))
        this.scope.retries?.recordFailure(this, { runId: outcome.runId, parent, call, args, definition });
      return outcome;
    } finally {
      parent.activeChildren--;
    }
  }
}

function refuse(code: ToolErrorCode, message: string): ToolOutcome {
  return { content: toolErrorText(code, message), status: toolErrorStatus(code) };
}
