import { SessionModel } from "./session";
import { SubagentRunModel } from "./subagent-run";
import { ToolCallModel } from "./tool-call";
import { ToolOutputModel } from "./tool-output";
import { TurnModel } from "./turn";

export { SessionModel, SubagentRunModel, ToolCallModel, ToolOutputModel, TurnModel };

/**
 * Creates every collection and index before the first query. Mongoose otherwise does it
 * in the background on connect, racing the first writes; the H2 backend of the test
 * database server answers such a race with "Unknown error".
 */
export async function initModels(): Promise<void> {
  await Promise.all([SessionModel, TurnModel, ToolCallModel, ToolOutputModel, SubagentRunModel].map((model) => model.init()));
}
