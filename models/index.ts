import type { Connection } from "mongoose";
import { defineModelBlobModel } from "./model-blob";
import { defineModelCallModel } from "./model-call";
import { defineSearchEntryModel } from "./search-entry";
import { defineSessionModel } from "./session";
import { defineSubagentRunModel } from "./subagent-run";
import { defineTextChunkModel } from "./text-chunk";
import { defineToolCallModel } from "./tool-call";
import { defineToolOutputModel } from "./tool-output";
import { defineTurnModel } from "./turn";
import { defineTurnLeaseModel } from "./turn-lease";
import { defineAccountModel, defineLoginSessionModel, defineOneTimeLinkModel, defineSignInSessionModel } from "./account";
import { defineShareLinkModel } from "./share-link";
import { definePersonSettingsModel } from "./person-settings";
import { defineAttachmentModel } from "./attachment";
import { defineAttachmentChunkModel } from "./attachment-chunk";
import { defineQuotaUsageModel } from "./quota-usage";
import { defineAgentDefinitionModel } from "./agent-definition";
import { defineApiTokenModel } from "./api-token";
import { defineA2ATaskModel } from "./a2a-task";
import { defineMcpOAuthModel } from "./mcp-oauth";
import { definePushSubscriptionModel, defineVapidKeysModel } from "./push-subscription";

/**
 * The models, created on the connection they are given — nothing binds to mongoose's
 * global connection at import, so a test, a benchmark or a second database can each have
 * their own. The server makes one set per process (server/db/connect.ts).
 */
export function createModels(connection: Connection) {
  return {
    Session: defineSessionModel(connection),
    Turn: defineTurnModel(connection),
    ToolCall: defineToolCallModel(connection),
    ToolOutput: defineToolOutputModel(connection),
    SubagentRun: defineSubagentRunModel(connection),
    TextChunk: defineTextChunkModel(connection),
    ModelCall: defineModelCallModel(connection),
    ModelBlob: defineModelBlobModel(connection),
    SearchEntry: defineSearchEntryModel(connection),
    // Accounts: unused in the default single mode.
    Account: defineAccountModel(connection),
    SignInSession: defineSignInSessionModel(connection),
    OneTimeLink: defineOneTimeLinkModel(connection),
    // APP_PASSWORD logins: unused without it.
    LoginSession: defineLoginSessionModel(connection),
    // Read-only share links.
    ShareLink: defineShareLinkModel(connection),
    // A person's defaults across their chats (the model a new chat starts on).
    PersonSettings: definePersonSettingsModel(connection),
    // Files attached to chats, and their bytes.
    Attachment: defineAttachmentModel(connection),
    AttachmentChunk: defineAttachmentChunkModel(connection),
    // Subagent definitions made in the app, one document per version.
    AgentDefinition: defineAgentDefinitionModel(connection),
    // API tokens (bearer secrets for other agents), kept as hashes.
    ApiToken: defineApiTokenModel(connection),
    // Tasks other agents sent over A2A: unused without A2A_SERVER_ENABLED.
    A2ATask: defineA2ATaskModel(connection),
    // Scale-out: unused without REDIS_URL.
    TurnLease: defineTurnLeaseModel(connection),
    // A person's spending per UTC day and month: unused without quotas.
    QuotaUsage: defineQuotaUsageModel(connection),
    // People's sign-ins to MCP servers with oauth: unused without such a server.
    McpOAuth: defineMcpOAuthModel(connection),
    // Browser notifications: people's push subscriptions and the app's VAPID keys.
    PushSubscription: definePushSubscriptionModel(connection),
    VapidKeys: defineVapidKeysModel(connection),
  };
}

export type Models = ReturnType<typeof createModels>;

/**
 * Creates every collection and index before the first query. Mongoose otherwise does it
 * in the background on connect, racing the first writes; the H2 backend of the test
 * database server answers such a race with "Unknown error".
 */
export async function initModels(models: Models): Promise<void> {
  await Promise.all(Object.values(models).map((model) => model.init()));
}
