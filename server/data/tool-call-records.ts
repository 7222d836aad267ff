/** A tool call's records as stored: the call itself (ToolCall) and, beside it, a long output whole (ToolOutput). */

/** Characters per ToolOutput document: one chunk per insert keeps every write far below the 16 MB message limit. */
const OUTPUT_CHUNK_CHARS = 1_000_000;

export const toolCallRecordId = (turnId: string, runId: string | null, callId: string) => `${turnId}:${runId ?? "m"}:${callId}`;

/** A call's record as it starts; its order among its agent's calls is the caller's count. */
export function toolCallRecord(
  sessionId: string,
  turnId: string,
  runId: string | null,
  call: { step: number; callId: string; name: string; parameters: string; at?: string },
  order: number,
) {
  return {
    _id: toolCallRecordId(turnId, runId, call.callId),
    sessionId,
    turnId,
    runId,
    callId: call.callId,
    step: call.step,
    order,
    name: call.name,
    parameters: call.parameters,
    status: "running" as const,
    ...(call.at !== undefined ? { startedAt: call.at } : {}),
  };
}

/** The whole text of a call's output (`toolCallId`), in chunks. */
export function toolOutputChunks(sessionId: string, toolCallId: string, full: string) {
  const chunks: { _id: string; sessionId: string; toolCallId: string; n: number; data: string }[] = [];
  for (let n = 0; n * OUTPUT_CHUNK_CHARS < full.length; n++) {
    chunks.push({
      _id: `${toolCallId}#${n}`,
      sessionId,
      toolCallId,
      n,
      data: full.slice(n * OUTPUT_CHUNK_CHARS, (n + 1) * OUTPUT_CHUNK_CHARS),
    });
  }
  return chunks;
}
