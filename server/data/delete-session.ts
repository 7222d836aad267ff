import { AppError } from "@/lib/contracts";
import { SessionModel } from "@/models/session";
import { SubagentRunModel } from "@/models/subagent-run";
import { ToolCallModel } from "@/models/tool-call";
import { ToolOutputModel } from "@/models/tool-output";
import { TurnModel } from "@/models/turn";

/** Removes a session and everything stored under it. */
export async function deleteSessionData(ownerId: string, sessionId: string): Promise<void> {
  const removed = await SessionModel.deleteOne({ _id: sessionId, ownerId });
  if (removed.deletedCount === 0) throw new AppError("not_found", "That chat does not exist.");
  await Promise.all([
    TurnModel.deleteMany({ sessionId }),
    ToolCallModel.deleteMany({ sessionId }),
    SubagentRunModel.deleteMany({ sessionId }),
    ToolOutputModel.deleteMany({ sessionId }),
  ]);
}
