import type { ModelCallRecord } from "@/lib/contracts";

/** A finished master's model request of one user message and a text answer; `fields` override any part. */
export function modelCallRecord(fields: Partial<ModelCallRecord> & { content?: string; text?: string } = {}): ModelCallRecord {
  const at = new Date().toISOString();
  const { content = "hello", text = "", ...rest } = fields;
  return {
    callId: "c0",
    turnId: "t0",
    runId: null,
    purpose: "chat",
    index: 0,
    model: "m",
    modelLabel: "M",
    startedAt: at,
    endedAt: at,
    messageCount: 1,
    estimatedInputTokens: 0,
    toolCount: 0,
    usage: null,
    finishReason: "stop",
    error: null,
    request: { messages: [{ role: "user", content }], tools: [] },
    response: { text, thinking: "", toolCalls: [] },
    ...rest,
  };
}
