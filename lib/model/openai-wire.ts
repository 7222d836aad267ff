import { randomUUID } from "node:crypto";
import type { ChatCompletionContentPart, ChatCompletionMessageParam, ChatCompletionTool } from "openai/resources/chat/completions";
import type { ChatMessage, ModelStreamEvent, ModelToolCall, ToolSpec, UserContentPart } from "./types";

/** Function names chat-completions providers accept (OpenAI refuses the request otherwise). */
const WIRE_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const UNSAFE_WIRE_CHARS = /[^a-zA-Z0-9_-]/g;

/** How one request spells tool names on the wire, both ways. */
export interface WireNames {
  toWire(name: string): string;
  fromWire(name: string): string;
}

/**
 * Safe wire names for one request. Tool names that do not fit (an MCP tool is
 * `server.tool`) get a stand-in built from the name with unsafe characters as `_`,
 * suffixed until it is unique among every name of the request, tools and history alike,
 * so the mapping is reversible and the model's calls map back to the real tool.
 */
export function wireToolNames(tools: readonly ToolSpec[], messages: readonly ChatMessage[]): WireNames {
  const names = new Set<string>(tools.map((t) => t.name));
  for (const message of messages) if (message.role === "assistant") for (const call of message.toolCalls ?? []) names.add(call.name);
  const taken = new Set([...names].filter((n) => WIRE_NAME.test(n)));
  const toWire = new Map<string, string>();
  const fromWire = new Map<string, string>();
  for (const name of names) {
    if (WIRE_NAME.test(name)) continue;
    const base = name.replace(UNSAFE_WIRE_CHARS, "_").slice(0, 56) || "tool";
    let candidate = base;
    for (let n = 2; taken.has(candidate); n++) candidate = `${base}_${n}`;
    taken.add(candidate);
    toWire.set(name, candidate);
    fromWire.set(candidate, name);
  }
  return { toWire: (n) => toWire.get(n) ?? n, fromWire: (n) => fromWire.get(n) ?? n };
}

const SAME_NAMES: WireNames = { toWire: (n) => n, fromWire: (n) => n };

/** A user message's part as chat completions take it: an image as a base64 data URL. */
function wirePart(part: UserContentPart): ChatCompletionContentPart {
  if (part.type === "text") return { type: "text", text: part.text };
  return { type: "image_url", image_url: { url: `data:${part.mimeType};base64,${part.base64}` } };
}

/** Our messages in the chat-completions wire format. */
export function toWireMessages(messages: ChatMessage[], names: WireNames = SAME_NAMES): ChatCompletionMessageParam[] {
  return messages.map((message): ChatCompletionMessageParam => {
    switch (message.role) {
      case "system":
        return { role: "system", content: message.content };
      case "user":
        return { role: "user", content: typeof message.content === "string" ? message.content : message.content.map(wirePart) };
      case "assistant":
        if (!message.toolCalls?.length) return { role: "assistant", content: message.content };
        return {
          role: "assistant",
          // OpenAI itself sends null beside tool calls; some servers reject an empty string.
          content: message.content === "" ? null : message.content,
          tool_calls: message.toolCalls.map((call) => ({
            id: call.id,
            type: "function" as const,
            function: { name: names.toWire(call.name), arguments: asJsonObject(call.arguments) },
          })),
        };
      case "tool":
        return { role: "tool", tool_call_id: message.toolCallId, content: message.content };
    }
  });
}

/**
 * Arguments as history sends them back: a model's malformed arguments (kept as written for
 * the audit, and quoted in the error result it got) go back as `{}`, since providers may
 * reject a request whose history holds invalid JSON.
 */
function asJsonObject(args: string): string {
  try {
    const parsed: unknown = JSON.parse(args);
    return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed) ? args : "{}";
  } catch {
    return "{}";
  }
}

export function toWireTools(tools: ToolSpec[], names: WireNames = SAME_NAMES): ChatCompletionTool[] {
  return tools.map((tool) => ({
    type: "function" as const,
    function: { name: names.toWire(tool.name), description: tool.description, parameters: tool.parameters },
  }));
}

export function toFinishReason(reason: string): Extract<ModelStreamEvent, { type: "done" }>["finishReason"] {
  switch (reason) {
    case "stop":
    case "length":
    case "tool_calls":
      return reason;
    // The legacy name some OpenAI-compatible servers still send.
    case "function_call":
      return "tool_calls";
    default:
      return "other";
  }
}

interface ToolCallDelta {
  index?: number;
  id?: string;
  function?: { name?: string; arguments?: string };
}

interface PartialCall {
  id?: string;
  name: string;
  arguments: string;
}

/**
 * Assembles streamed tool-call fragments. OpenAI keys fragments by `index`; some servers
 * omit it or restart at 0 for every call, so a fragment carrying a new id for a slot that
 * already has one opens a new call instead of corrupting the previous one.
 */
export class ToolCallAssembler {
  private readonly calls: PartialCall[] = [];
  private readonly slotOf = new Map<number, number>();

  add(deltas: ToolCallDelta[]): void {
    deltas.forEach((delta, position) => {
      const key = delta.index ?? position;
      let slot = this.slotOf.get(key);
      const current = slot === undefined ? undefined : this.calls[slot];
      if (current === undefined || (delta.id && current.id && delta.id !== current.id)) {
        slot = this.calls.push({ id: delta.id, name: "", arguments: "" }) - 1;
        this.slotOf.set(key, slot);
      }
      const call = this.calls[slot!]!;
      if (delta.id && !call.id) call.id = delta.id;
      if (delta.function?.name) call.name += delta.function.name;
      if (delta.function?.arguments) call.arguments += delta.function.arguments;
    });
  }

  /**
   * The finished calls. Arguments that are not a JSON object pass through as written: the
   * tool answers them with an `invalid_arguments` error result the model can correct,
   * instead of one bad call failing the whole turn. A call without a name passes through
   * with an empty name for the same reason: the agent loop answers it with an error result.
   */
  finish(): ModelToolCall[] {
    return this.calls.map((call, i) => {
      // Servers stream nothing at all for a tool that takes no arguments.
      const args = call.arguments.trim() === "" ? "{}" : call.arguments;
      // A missing id would make results unmatchable; ids must stay unique across turns.
      return { id: call.id || `call_${randomUUID().slice(0, 8)}_${i + 1}`, name: call.name, arguments: args };
    });
  }
}
