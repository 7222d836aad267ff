import {
  context,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type Link,
  type Span,
  type Tracer,
} from "@opentelemetry/api";
import type { AgentEvent, AgentData } from "@/lib/contracts";
import type { ChatModel, ModelRequest, ModelStreamEvent, StreamObserver } from "@/lib/model/types";
import {
  agentAttributes,
  chatAttributes,
  chatEndAttributes,
  chatSpanName,
  DELEGATE,
  endReasonErrorType,
  executeToolSpanName,
  GEN_AI,
  invokeAgentSpanName,
  SPAN_EVENTS,
  statsAttributes,
  textMessages,
  toolAttributes,
  type Attributes,
} from "@/lib/telemetry/genai";
import type { TracedCommand, TracedTurn, TurnEnd, TurnTrace, TurnTracer } from "@/lib/telemetry/turn-tracer";
import { traceHeaders } from "./propagate";

export interface OtelTracerOptions {
  tracer: Tracer;
  /** OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: prompts, answers, tool arguments and results on the spans. */
  captureContent: boolean;
}

/**
 * The runtime's tracing port on OpenTelemetry: one trace per turn. The master's
 * `invoke_agent` span is the trace's root; each subagent's `invoke_agent` span is a child
 * of the `execute_tool subagent` span that spawned it, at any depth; `chat` spans (one per
 * model request) and `execute_tool` spans sit under the agent that made them. Parents are
 * named outright (by run and call id), not read from the async context, so a span lands
 * under its agent whatever ran it; the context is still set around each tool call and
 * model request, so what they send out (an MCP request, the model's HTTP request) carries
 * the trace.
 */
export function otelTurnTracer(options: OtelTracerOptions): TurnTracer {
  return { startTurn: (turn) => new OtelTurnTrace(options, turn) };
}

class OtelTurnTrace implements TurnTrace {
  private readonly root: Span;
  /** Open `invoke_agent` spans by run id ("" for the master). */
  private readonly agents = new Map<string, Span>();
  /** Open `execute_tool` spans by call id. */
  private readonly tools = new Map<string, Span>();
  /** The call that spawned each run, and the span it ran in, kept after the run ends (its condensation is its parent's work). */
  private readonly spawnedBy = new Map<string, Span>();
  /** Each request's `chat` span between `observe` and `stream` (the step calls them in that order). */
  private readonly requests = new WeakMap<ModelRequest, Context>();
  private ended = false;

  constructor(
    private readonly options: OtelTracerOptions,
    private readonly turn: TracedTurn,
  ) {
    // A turn is its own trace, whatever request started it: the socket message or HTTP
    // request that asked for it is linked, not made its parent (it ends long before the turn).
    const started = trace.getSpanContext(context.active());
    const links: Link[] = started && trace.isSpanContextValid(started) ? [{ context: started }] : [];
    const attributes = agentAttributes({ sessionId: turn.sessionId, turnId: turn.turnId, name: turn.agentName, runId: null, depth: 0 });
    if (options.captureContent) attributes[GEN_AI.inputMessages] = textMessages("user", turn.prompt);
    this.root = options.tracer.startSpan(invokeAgentSpanName(turn.agentName), { kind: SpanKind.INTERNAL, attributes, links, root: true });
    this.agents.set("", this.root);
  }

  event(event: AgentEvent): void {
    switch (event.type) {
      case "subagent_started": {
        const parent = this.tools.get(event.callId) ?? this.agentSpan(event.parentRunId);
        const attributes = agentAttributes({
          sessionId: this.turn.sessionId,
          turnId: this.turn.turnId,
          name: event.name,
          runId: event.runId,
          parentRunId: event.parentRunId,
          depth: event.depth,
          ...(event.definition ? { version: event.definition.version } : {}),
          ...(event.retryOf ? { retryOf: event.retryOf } : {}),
        });
        if (this.options.captureContent) {
          attributes[GEN_AI.inputMessages] = textMessages("user", event.prompt);
          attributes[DELEGATE.task] = event.task;
        }
        const span = this.start(invokeAgentSpanName(event.name), attributes, parent);
        if (event.retryOf) span.addEvent(SPAN_EVENTS.retried, { [DELEGATE.retryOf]: event.retryOf });
        this.agents.set(event.runId, span);
        this.spawnedBy.set(event.runId, parent);
        return;
      }
      case "subagent_completed":
      case "subagent_error": {
        const span = this.agents.get(event.runId);
        if (!span) return;
        this.agents.delete(event.runId);
        span.setAttributes({ ...statsAttributes(event.stats), [DELEGATE.endReason]: event.endReason });
        if (event.type === "subagent_completed" && this.options.captureContent)
          span.setAttribute(GEN_AI.outputMessages, textMessages("assistant", event.response, "stop"));
        if (event.type === "subagent_error") fail(span, endReasonErrorType(event.endReason), event.error);
        span.end();
        return;
      }
      case "turn:data":
      case "subagent_data":
        this.data(event.runId, event.data);
        return;
      default:
        return;
    }
  }

  private data(runId: string | null, data: AgentData): void {
    if (data.kind === "approval") {
      const span = this.tools.get(data.callId) ?? this.agentSpan(runId);
      const { approval } = data;
      if (approval.state === "pending") span.addEvent(SPAN_EVENTS.approvalRequested);
      else span.addEvent(SPAN_EVENTS.approvalDecided, { "delegate.approval.state": approval.state });
    } else if (data.kind === "steer") {
      const attributes: Attributes = { "delegate.steer.step": data.step, "delegate.steer.index": data.index };
      if (this.options.captureContent) attributes["delegate.steer.message"] = data.message;
      this.agentSpan(runId).addEvent(SPAN_EVENTS.steerInjected, attributes);
    }
  }

  model(model: ChatModel, runId: string | null, purpose: "chat" | "system"): ChatModel {
    const observe = (request: ModelRequest): StreamObserver => {
      const inner = model.observe?.(request);
      const span = this.start(chatSpanName(model.id), chatAttributes(model, purpose), this.modelParent(runId), SpanKind.CLIENT);
      if (this.options.captureContent) span.setAttribute(GEN_AI.inputMessages, JSON.stringify(request.messages.map(wireMessage)));
      this.requests.set(request, trace.setSpan(context.active(), span));
      let usage: { inputTokens: number; outputTokens: number } | undefined;
      let finishReason: Extract<ModelStreamEvent, { type: "done" }>["finishReason"] | undefined;
      let responseModel: string | undefined;
      let text = "";
      return {
        event: (event) => {
          inner?.event(event);
          if (event.type === "usage") usage = { inputTokens: event.inputTokens, outputTokens: event.outputTokens };
          else if (event.type === "done") {
            finishReason = event.finishReason;
            responseModel = event.model;
          } else if (event.type === "text" && this.options.captureContent) text += event.text;
        },
        end: (error) => {
          inner?.end(error);
          span.setAttributes(
            chatEndAttributes({
              ...(usage ? { usage } : {}),
              ...(finishReason ? { finishReason } : {}),
              ...(responseModel ? { responseModel } : {}),
            }),
          );
          if (this.options.captureContent && finishReason)
            span.setAttribute(GEN_AI.outputMessages, textMessages("assistant", text, finishReason));
          if (error !== undefined) fail(span, errorTypeOf(error), error instanceof Error ? error.message : String(error));
          span.end();
        },
      };
    };
    return {
      id: model.id,
      label: model.label,
      isDemo: model.isDemo,
      observe,
      stream: (request) => {
        const ctx = this.requests.get(request);
        if (!ctx) return model.stream(request);
        // The provider's HTTP request carries the `chat` span's context (traceparent).
        const headers = { ...request.headers, ...traceHeaders(ctx) };
        return inContext(ctx, model.stream({ ...request, headers }));
      },
    };
  }

  async tool<T extends { content: string; status: string }>(
    runId: string | null,
    call: { id: string; name: string; arguments: string },
    run: () => Promise<T>,
  ): Promise<T> {
    const attributes = toolAttributes(call);
    if (this.options.captureContent) attributes[GEN_AI.toolArguments] = call.arguments;
    const span = this.start(executeToolSpanName(call.name), attributes, this.agentSpan(runId));
    this.tools.set(call.id, span);
    try {
      const outcome = await context.with(trace.setSpan(context.active(), span), run);
      span.setAttribute(DELEGATE.toolStatus, outcome.status);
      if (this.options.captureContent) span.setAttribute(GEN_AI.toolResult, outcome.content);
      if (outcome.status === "error") fail(span, "tool_error");
      return outcome;
    } catch (error) {
      fail(span, errorTypeOf(error), error instanceof Error ? error.message : String(error));
      throw error;
    } finally {
      this.tools.delete(call.id);
      span.end();
    }
  }

  compacted(runId: string | null, info: { method: string; beforeTokens: number; afterTokens: number }): void {
    this.agentSpan(runId).addEvent(SPAN_EVENTS.compacted, {
      "delegate.compaction.method": info.method,
      "delegate.compaction.before_tokens": info.beforeTokens,
      "delegate.compaction.after_tokens": info.afterTokens,
    });
  }

  /** On the call that spawned the run: condensing its answer is its parent's work, after the run ended. */
  condensed(runId: string, info: { level: number; originalTokens: number; bodyTokens: number }): void {
    (this.spawnedBy.get(runId) ?? this.root).addEvent(SPAN_EVENTS.condensed, {
      [DELEGATE.runId]: runId,
      "delegate.condensation.level": info.level,
      "delegate.condensation.original_tokens": info.originalTokens,
      "delegate.condensation.body_tokens": info.bodyTokens,
    });
  }

  command(command: TracedCommand): void {
    switch (command.kind) {
      case "cancel":
        this.root.addEvent(SPAN_EVENTS.cancelRequested);
        return;
      case "steer": {
        const attributes: Attributes = { [DELEGATE.runId]: command.runId };
        if (this.options.captureContent) attributes["delegate.steer.message"] = command.message;
        this.agentSpan(command.runId).addEvent(SPAN_EVENTS.steerReceived, attributes);
        return;
      }
      case "kill":
        this.agentSpan(command.runId).addEvent(SPAN_EVENTS.killRequested, { [DELEGATE.runId]: command.runId });
        return;
      case "decide":
        (this.tools.get(command.callId) ?? this.agentSpan(command.runId ?? null)).addEvent(SPAN_EVENTS.decisionReceived, {
          [GEN_AI.toolCallId]: command.callId,
          "delegate.approval.approve": command.approve,
        });
        return;
      case "answer":
        (this.tools.get(command.callId) ?? this.agentSpan(command.runId ?? null)).addEvent(SPAN_EVENTS.answerReceived, {
          [GEN_AI.toolCallId]: command.callId,
          "delegate.input.action": command.action,
        });
        return;
      case "retry":
        this.root.addEvent(SPAN_EVENTS.retryRequested, { [DELEGATE.runId]: command.runId });
        return;
    }
  }

  end(end: TurnEnd): void {
    if (this.ended) return;
    this.ended = true;
    // Whatever the turn leaves open ends with it (a cancel or a stop does not wait for every span).
    for (const span of this.tools.values()) span.end();
    for (const [runId, span] of this.agents) if (runId !== "") span.end();
    const { root } = this;
    root.setAttributes(statsAttributes(end.stats));
    root.setAttribute(DELEGATE.endReason, end.status === "completed" ? "completed" : (end.errorType ?? end.status));
    if (end.answer !== undefined && this.options.captureContent)
      root.setAttribute(GEN_AI.outputMessages, textMessages("assistant", end.answer, "stop"));
    if (end.status === "failed") fail(root, end.errorType ?? "_OTHER", end.error);
    root.end();
  }

  within<T>(fn: () => T): T {
    // The root span stays the context after it ended: the turn's last lines still name it.
    return context.with(trace.setSpan(context.active(), this.root), fn);
  }

  private start(name: string, attributes: Attributes, parent: Span, kind: SpanKind = SpanKind.INTERNAL): Span {
    return this.options.tracer.startSpan(name, { kind, attributes }, trace.setSpan(ROOT_CONTEXT, parent));
  }

  /** A run's open span; the master's when the run is unknown or already ended. */
  private agentSpan(runId: string | null | undefined): Span {
    return this.agents.get(runId ?? "") ?? this.root;
  }

  /**
   * Where a run's model request goes: under the run while it runs; after it ended (its
   * result's condensation) under the call that spawned it, whose work that is.
   */
  private modelParent(runId: string | null): Span {
    return this.agents.get(runId ?? "") ?? (runId ? this.spawnedBy.get(runId) : undefined) ?? this.root;
  }
}

function fail(span: Span, errorType: string | undefined, message?: string): void {
  if (!errorType) return;
  span.setAttribute(GEN_AI.errorType, errorType);
  span.setStatus({ code: SpanStatusCode.ERROR, ...(message ? { message } : {}) });
}

function errorTypeOf(error: unknown): string {
  if (typeof error === "object" && error !== null && "code" in error && typeof error.code === "string") return error.code;
  if (error instanceof Error) return error.name;
  return "_OTHER";
}

/** A message as the conventions' `gen_ai.input.messages` carries it: role and text parts (images by name only). */
function wireMessage(message: ModelRequest["messages"][number]): unknown {
  if (message.role === "tool")
    return { role: "tool", parts: [{ type: "tool_call_response", id: message.toolCallId, response: message.content }] };
  const parts: unknown[] = [];
  if (typeof message.content === "string") parts.push({ type: "text", content: message.content });
  else
    for (const part of message.content)
      parts.push(part.type === "text" ? { type: "text", content: part.text } : { type: "image", name: part.name });
  if (message.role === "assistant")
    for (const call of message.toolCalls ?? []) parts.push({ type: "tool_call", id: call.id, name: call.name, arguments: call.arguments });
  return { role: message.role, parts };
}

/** A stream whose every read runs in `ctx`: an async generator's body runs in the context of whoever calls `next`. */
function inContext<T>(ctx: Context, stream: AsyncIterable<T>): AsyncIterable<T> {
  return {
    [Symbol.asyncIterator]() {
      const iterator = context.with(ctx, () => stream[Symbol.asyncIterator]());
      return {
        next: () => context.with(ctx, () => iterator.next()),
        return: (value?: unknown) =>
          context.with(ctx, () => iterator.return?.(value) ?? Promise.resolve({ done: true as const, value: undefined as T })),
      };
    },
  };
}
