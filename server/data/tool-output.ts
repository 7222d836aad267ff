import { AppError } from "@/lib/contracts";
import { ToolCallModel } from "@/models/tool-call";
import { ToolOutputModel } from "@/models/tool-output";
import { toolCallRecordId } from "./event-store";

/**
 * The whole text of one tool call's output ("show all"), for a session already checked.
 * Call ids come from models and repeat across runs (two subagents may both say "call_1"),
 * so the turn and run pin the call down; without them the newest match is used.
 */
export async function loadFullToolOutput(
  sessionId: string,
  callId: string,
  where: { turnId?: string; runId?: string | null } = {},
): Promise<string> {
  const filter =
    where.turnId !== undefined
      ? { _id: toolCallRecordId(where.turnId, where.runId ?? null, callId), sessionId }
      : { sessionId, callId };
  const call = await ToolCallModel.findOne(filter, { response: 1, responseSize: 1 })
    .sort({ _id: -1 })
    .lean<{ _id: string; response: string; responseSize: number }>();
  if (!call) throw new AppError("not_found", "That tool call does not exist.");
  if (call.response.length >= call.responseSize) return call.response;
  const chunks = await ToolOutputModel.find({ toolCallId: call._id }, { data: 1, n: 1 }).sort({ n: 1 }).lean<{ data: string }[]>();
  return chunks.map((c) => c.data).join("");
}
