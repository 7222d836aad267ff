import { AppError } from "@/lib/contracts";
import { ToolCallModel } from "@/models/tool-call";
import { ToolOutputModel } from "@/models/tool-output";

/** The whole text of one tool call's output ("show all"), for a session already checked. */
export async function loadFullToolOutput(sessionId: string, callId: string): Promise<string> {
  const call = await ToolCallModel.findOne({ sessionId, callId }, { response: 1, responseSize: 1 }).lean<{ _id: string; response: string; responseSize: number }>();
  if (!call) throw new AppError("not_found", "That tool call does not exist.");
  if (call.response.length >= call.responseSize) return call.response;
  const chunks = await ToolOutputModel.find({ toolCallId: call._id }, { data: 1, n: 1 }).sort({ n: 1 }).lean<{ data: string }[]>();
  return chunks.map((c) => c.data).join("");
}
