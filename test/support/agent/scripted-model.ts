import type { ChatMessage, ChatModel, ModelRequest, ModelStreamEvent } from "@/lib/model/types";
import { contentText } from "@/lib/model/content";

/**
 * A ChatModel for tests that answers each request from a handler and records every request
 * it receives — what the model port actually saw, for the clean-context assertions.
 */

export interface ScriptedReply {
  text?: string;
  thinking?: string;
  toolCalls?: { id: string; name: string; args: unknown }[];
  /** Thrown from the stream, after any text. */
  error?: Error;
  /** Never finish (until the request's signal aborts). */
  hang?: boolean;
  usage?: { inputTokens: number; outputTokens: number };
}

export type ScriptedHandler = (request: ModelRequest, index: number) => ScriptedReply | Promise<ScriptedReply>;

export interface ScriptedModel extends ChatModel {
  requests: ModelRequest[];
}

export function scriptedModel(handler: ScriptedHandler, label = "scripted"): ScriptedModel {
  const requests: ModelRequest[] = [];
  return {
    id: label,
    label,
    isDemo: false,
    requests,
    async *stream(request): AsyncGenerator<ModelStreamEvent> {
      const index = requests.length;
      requests.push({ ...request, messages: structuredClone(request.messages) });
      const reply = await handler(request, index);
      if (reply.thinking) yield { type: "thinking", text: reply.thinking };
      if (reply.text) {
        for (const piece of reply.text.match(/[\s\S]{1,12}/g) ?? []) yield { type: "text", text: piece };
      }
      if (reply.error) throw reply.error;
      if (reply.hang) {
        await new Promise<void>((resolve) => request.signal?.addEventListener("abort", () => resolve(), { once: true }));
        return;
      }
      for (const call of reply.toolCalls ?? []) {
        yield {
          type: "tool_call",
          call: { id: call.id, name: call.name, arguments: typeof call.args === "string" ? call.args : JSON.stringify(call.args) },
        };
      }
      if (reply.usage) yield { type: "usage", ...reply.usage };
      yield { type: "done", finishReason: reply.toolCalls?.length ? "tool_calls" : "stop" };
    },
  };
}

/** The system prompt of a request: tells the master, each subagent kind and system work apart. */
export function systemOf(request: ModelRequest): string {
  const first = request.messages[0];
  return first?.role === "system" ? first.content : "";
}

export function lastUser(messages: readonly ChatMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.role === "user") return contentText(messages[i]!.content);
  return "";
}

/** Every tool message in the request: how far the agent has got. */
export function toolResults(messages: readonly ChatMessage[]): Extract<ChatMessage, { role: "tool" }>[] {
  return messages.filter((m): m is Extract<ChatMessage, { role: "tool" }> => m.role === "tool");
}
