/** A tool call's records as stored: the call itself (ToolCall) and, beside it, a long output whole (ToolOutput). */
import type { Approval, InputRequest, ToolStatus } from "@/lib/contracts";

/** Characters per ToolOutput document: one chunk per insert keeps every write far below the 16 MB message limit. */
const OUTPUT_CHUNK_CHARS = 1_000_000;

export const toolCallRecordId = (turnId: string, runId: string | null, callId: string) => `${turnId}:${runId ?? "m"}:${callId}`;

/**
 * A call's record as the database holds it. It is inserted as is, without mongoose's
 * document (whose creation was most of an insert's cost), so it carries what the schema
 * (models/tool-call.ts) would have added: its defaults (`response: ""`, `responseSize: 0`),
 * in the schema's field order, with the fields a later `$set` adds (`approval`, `inputs`, `endedAt`)
 * after them, where the update would have put them.
 */
export interface ToolCallDocument {
  _id: string;
  sessionId: string;
  turnId: string;
  runId: string | null;
  callId: string;
  step: number;
  order: number;
  name: string;
  parameters: string;
  response: string;
  responseSize: number;
  status: ToolStatus;
  startedAt?: string;
  approval?: Approval;
  inputs?: InputRequest[];
  endedAt?: string;
}

/** A call's record as it starts; its order among its agent's calls is the caller's count. */
export function toolCallRecord(
  sessionId: string,
  turnId: string,
  runId: string | null,
  call: { step: number; callId: string; name: string; parameters: string; at?: string },
  order: number,
): ToolCallDocument {
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
    response: "",
    responseSize: 0,
    status: "running",
    ...(call.at !== undefined ? { startedAt: call.at } : {}),
  };
}

/** What a call's result sets on its record: the same fields whether sent as an update or folded into a record not sent yet. */
export function resultFields(result: { response: string; responseSize: number; status: ToolStatus; at?: string }) {
  const { response, responseSize, status, at } = result;
  return { response, responseSize, status, ...(at !== undefined ? { endedAt: at } : {}) };
}

/**
 * An approval as the schema's casting stores it: its fields in the schema's order,
 * absent ones left out, and `reason` defaulting to "".
 */
export function storedApproval(approval: Approval): Approval {
  const { state, requestedAt, reason = "", preview, decidedAt, decidedBy, denyReason, note } = approval;
  return {
    state,
    requestedAt,
    reason,
    ...(preview !== undefined ? { preview } : {}),
    ...(decidedAt !== undefined ? { decidedAt } : {}),
    ...(decidedBy !== undefined ? { decidedBy } : {}),
    ...(denyReason !== undefined ? { denyReason } : {}),
    ...(note !== undefined ? { note } : {}),
  };
}

export type ToolOutputDocument = { _id: string; sessionId: string; toolCallId: string; n: number; data: string };

/** The whole text of a call's output (`toolCallId`), in chunks. */
export function toolOutputChunks(sessionId: string, toolCallId: string, full: string): ToolOutputDocument[] {
  const chunks: ToolOutputDocument[] = [];
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
