import { readFileSync } from "node:fs";
import path from "node:path";
import { createAgentRuntime, type AgentRuntime } from "@/lib/agent/runtime";
import {
  BUILTIN_DEFINITIONS,
  SubagentConfigError,
  mergeDefinitions,
  parseSubagentDefinitions,
  type ModelRef,
} from "@/lib/agent/definitions";
import { checkModelKeys, createModelResolver, unpricedModels } from "@/lib/agent/run-models";
import type { AppInfo } from "@/lib/contracts";
import { variable, type Env } from "@/lib/env";
import { createDemoModel } from "@/lib/model/demo-model";
import { createOpenAIModel } from "@/lib/model/openai-adapter";
import type { ChatModel } from "@/lib/model/types";
import { createWorkspaceTools } from "@/lib/tools";
import type { Logger } from "@/lib/log";
import { createMcpManager, loadMcpConfig, type McpManager } from "@/server/mcp/manager";

/**
 * Wires the agent runtime from configuration: the model (an OpenAI-compatible endpoint
 * when MODEL is set, else the offline demo model), the workspace tools and the subagent
 * definitions (built-ins plus SUBAGENTS_FILE), each subagent on the model its definition
 * names, and the MCP servers of MCP_CONFIG_FILE, whose tools join the workspace tools as
 * they connect (the caller closes `mcp`). `lookup` reads the variables that definitions
 * name for their keys.
 *
 * A definition whose `apiKeyEnv` names an unset variable stops the start with a
 * `SubagentConfigError` rather than a warning: the operator asked for a key, and without
 * it every run of that subagent would fail mid-turn with an HTTP 401.
 */
export function buildRuntime(
  env: Env,
  log: Pick<Logger, "warn" | "info">,
  lookup: (name: string) => string | undefined = variable,
): { runtime: AgentRuntime; appInfo: AppInfo | (() => AppInfo); mcp?: McpManager } {
  const model = chooseModel(env, env.MODEL);
  const systemModel = env.SYSTEM_MODEL ? chooseModel(env, env.SYSTEM_MODEL) : undefined;
  const configured = env.SUBAGENTS_FILE ? parseSubagentDefinitions(readJsonFile(env.SUBAGENTS_FILE)) : [];
  const definitions = mergeDefinitions(BUILTIN_DEFINITIONS, configured);
  checkModelKeys(definitions, lookup);
  const unpriced = unpricedModels(definitions);
  if (unpriced.length) log.warn("Subagents on a model of their own without prices: their cost shows as $0", { subagents: unpriced });
  const pricing =
    env.MODEL_PRICE_INPUT !== undefined || env.MODEL_PRICE_OUTPUT !== undefined
      ? { inputPerMTok: env.MODEL_PRICE_INPUT ?? 0, outputPerMTok: env.MODEL_PRICE_OUTPUT ?? 0 }
      : undefined;
  const modelFor = createModelResolver(definitions, {
    chat: model,
    system: systemModel ?? model,
    pricing,
    connect: (ref) => openModelRef(env, ref, lookup),
  });
  const workspaceTools = createWorkspaceTools({ urlFetch: { enabled: env.URL_FETCH_ENABLED }, allowGitWrites: env.ALLOW_GIT_WRITES });
  const mcp = env.MCP_CONFIG_FILE ? createMcpManager(loadMcpConfig(env.MCP_CONFIG_FILE), { log }) : undefined;
  const runtime = createAgentRuntime({
    model,
    systemModel,
    tools: mcp ? () => [...workspaceTools, ...mcp.tools()] : workspaceTools,
    definitions,
    workspaceDir: path.resolve(env.WORKSPACE_DIR),
    limits: {
      maxSpawnDepth: env.MAX_SPAWN_DEPTH,
      maxChildrenPerAgent: env.MAX_CHILDREN_PER_AGENT,
      maxResultTokens: env.MAX_RESULT_TOKENS,
      subagentTimeoutMs: env.SUBAGENT_TIMEOUT_MS,
      maxSteps: env.MAX_STEPS,
      maxToolCallsPerReply: env.MAX_TOOL_CALLS_PER_REPLY,
      resultFooter: env.RESULT_FOOTER,
      turnTimeoutMs: env.TURN_TIMEOUT_MS,
      approvalTimeoutMs: env.APPROVAL_TIMEOUT_MS,
      contextTokens: env.CONTEXT_TOKENS,
    },
    pricing,
    modelFor,
    log,
  });
  const appInfo: AppInfo = {
    modelLabel: model.label,
    demo: model.isDemo,
    passwordProtected: Boolean(env.APP_PASSWORD),
    contextTokens: env.CONTEXT_TOKENS,
  };
  return { runtime, appInfo: mcp ? () => ({ ...appInfo, mcpServers: mcp.servers() }) : appInfo, mcp };
}

function chooseModel(env: Env, name: string | undefined): ChatModel {
  if (!name) return createDemoModel({ chunkDelayMs: env.DEMO_CHUNK_DELAY_MS, replyDelayMs: env.DEMO_REPLY_DELAY_MS });
  return createOpenAIModel({
    baseURL: env.OPENAI_BASE_URL,
    apiKey: env.OPENAI_API_KEY,
    model: name,
    timeoutMs: env.MODEL_TIMEOUT_MS,
    maxRetries: env.MODEL_MAX_RETRIES,
  });
}

/**
 * A definition's own model. Without `baseURL` it is another model on the master's endpoint,
 * with the master's key unless `apiKeyEnv` names another. With a `baseURL` it gets only the
 * key `apiKeyEnv` names: OPENAI_API_KEY is never sent to an endpoint it was not set for.
 */
function openModelRef(env: Env, ref: ModelRef, lookup: (name: string) => string | undefined): ChatModel {
  const apiKey = ref.apiKeyEnv ? lookup(ref.apiKeyEnv) : ref.baseURL ? undefined : env.OPENAI_API_KEY;
  return createOpenAIModel({
    baseURL: ref.baseURL ?? env.OPENAI_BASE_URL,
    apiKey,
    model: ref.name,
    timeoutMs: env.MODEL_TIMEOUT_MS,
    maxRetries: env.MODEL_MAX_RETRIES,
  });
}

/** The definitions file, or a `SubagentConfigError` that names it and says what is wrong. */
function readJsonFile(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new SubagentConfigError(`SUBAGENTS_FILE ${file} cannot be read: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new SubagentConfigError(`SUBAGENTS_FILE ${file} is not valid JSON: ${(error as Error).message}`);
  }
}
