import type { ModelCallRecord, ModelCallSink, ModelMessage } from "@/lib/contracts";
import { estimateRequestTokens } from "@/lib/context/tokens";
import type { ChatModel, ChatMessage, ModelRequest, StreamObserver } from "@/lib/model/types";
import { contentText } from "@/lib/model/content";

/**
 * A model that reports each request it serves: the messages and tools exactly as sent,
 * what came back, the provider's own usage, and how it ended. It adds an observer to the
 * model an agent runs on, so every call site (a step, a compaction, a condensation) is
 * recorded without the loop knowing, and the stream's events pass by it rather than
 * through it. The record is made when the stream ends, fails or is abandoned (a kill, a
 * cancel), so an aborted request is recorded too.
 */

export interface TraceTag {
  turnId: string;
  runId: string | null;
  purpose: ModelCallRecord["purpose"];
}

export function traceModel(
  model: ChatModel,
  tag: TraceTag,
  sink: ModelCallSink,
  options: { now: () => number; newId: () => string },
): ChatModel {
  let index = 0;
  return {
    id: model.id,
    label: model.label,
    isDemo: model.isDemo,
    stream: (request) => model.stream(request),
    observe: (request) => recorder(model, request, tag, index++, sink, options),
  };
}

function recorder(
  model: ChatModel,
  request: ModelRequest,
  tag: TraceTag,
  index: number,
  sink: ModelCallSink,
  options: { now: () => number; newId: () => string },
): StreamObserver {
  const started = options.now();
  // Copied now: the caller's transcript keeps growing after the request leaves.
  const messages = request.messages.map(plainMessage);
  const tools = (request.tools ?? []).map((t) => ({ name: t.name, description: t.description, parameters: t.parameters }));
  const response: ModelCallRecord["response"] = { text: "", thinking: "", toolCalls: [] };
  let usage: ModelCallRecord["usage"] = null;
  let finishReason: ModelCallRecord["finishReason"] = null;
  return {
    event(event) {
      if (event.type === "text") response.text += event.text;
      else if (event.type === "thinking") response.thinking += event.text;
      else if (event.type === "tool_call") {
        if (response.toolCalls.length < (request.maxToolCalls ?? Infinity)) response.toolCalls.push({ ...event.call });
        else response.toolCallsLeftOut = (response.toolCallsLeftOut ?? 0) + 1;
      } else if (event.type === "usage") usage = { inputTokens: event.inputTokens, outputTokens: event.outputTokens };
      else if (event.type === "done") finishReason = event.finishReason;
    },
    end(failure) {
      let error: string | null =
        failure === undefined ? null : failure instanceof Error ? failure.message || failure.name : String(failure);
      // Cut off by a kill, a cancel or a watchdog: whatever the stream did after the abort.
      if (request.signal?.aborted && finishReason === null) error = `aborted (${String(request.signal.reason ?? "stopped")})`;
      try {
        sink({
          callId: options.newId(),
          turnId: tag.turnId,
          runId: tag.runId,
          purpose: tag.purpose,
          index,
          model: model.id,
          modelLabel: model.label,
          startedAt: new Date(started).toISOString(),
          endedAt: new Date(options.now()).toISOString(),
          messageCount: messages.length,
          estimatedInputTokens: estimateRequestTokens(request.messages, request.tools),
          toolCount: tools.length,
          usage,
          finishReason,
          error,
          request: { messages, tools },
          response,
        });
      } catch {
        // Recording is an audit aid: a failing sink must never fail the request it records.
      }
    },
  };
}

function plainMessage(message: ChatMessage): ModelMessage {
  switch (message.role) {
    case "assistant":
      return {
        role: "assistant",
        content: message.content,
        ...(message.toolCalls?.length ? { toolCalls: message.toolCalls.map((c) => ({ ...c })) } : {}),
      };
    case "tool":
      return { role: "tool", content: message.content, toolCallId: message.toolCallId, toolName: message.toolName };
    case "user":
      // An image is recorded as its placeholder: the record stays text a person can read, without the base64.
      return { role: "user", content: contentText(message.content) };
    default:
      return { role: message.role, content: message.content };
  }
}

/** Wraps the model an agent of the turn runs on (`runId` null = the master); identity when nothing records. */
export type ModelTracer = (model: ChatModel, runId: string | null, purpose: TraceTag["purpose"]) => ChatModel;
