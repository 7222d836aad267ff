import { readFileSync } from "node:fs";
import path from "node:path";
import { createAgentRuntime, type AgentRuntime } from "@/lib/agent/runtime";
import { BUILTIN_DEFINITIONS, mergeDefinitions, parseSubagentDefinitions } from "@/lib/agent/definitions";
import type { AppInfo } from "@/lib/contracts";
import type { Env } from "@/lib/env";
import { createDemoModel } from "@/lib/model/demo-model";
import { createOpenAIModel } from "@/lib/model/openai-adapter";
import type { ChatModel } from "@/lib/model/types";
import { createWorkspaceTools } from "@/lib/tools";
import type { Logger } from "@/lib/log";

/**
 * Wires the agent runtime from configuration: the model (an OpenAI-compatible endpoint
 * when MODEL is set, else the offline demo model), the workspace tools and the subagent
 * definitions (built-ins plus SUBAGENTS_FILE).
 */
export function buildRuntime(env: Env, log: Pick<Logger, "warn">): { runtime: AgentRuntime; appInfo: AppInfo } {
  const model = chooseModel(env, env.MODEL);
  const systemModel = env.SYSTEM_MODEL ? chooseModel(env, env.SYSTEM_MODEL) : undefined;
  const configured = env.SUBAGENTS_FILE ? parseSubagentDefinitions(JSON.parse(readFileSync(env.SUBAGENTS_FILE, "utf8"))) : [];
  const runtime = createAgentRuntime({
    model,
    systemModel,
    tools: createWorkspaceTools({ urlFetch: { enabled: env.URL_FETCH_ENABLED } }),
    definitions: mergeDefinitions(BUILTIN_DEFINITIONS, configured),
    workspaceDir: path.resolve(env.WORKSPACE_DIR),
    limits: {
      maxSpawnDepth: env.MAX_SPAWN_DEPTH,
      maxChildrenPerAgent: env.MAX_CHILDREN_PER_AGENT,
      maxResultTokens: env.MAX_RESULT_TOKENS,
      subagentTimeoutMs: env.SUBAGENT_TIMEOUT_MS,
      maxSteps: env.MAX_STEPS,
      resultFooter: env.RESULT_FOOTER,
      turnTimeoutMs: env.TURN_TIMEOUT_MS,
      approvalTimeoutMs: env.APPROVAL_TIMEOUT_MS,
      contextTokens: env.CONTEXT_TOKENS,
    },
    pricing:
      env.MODEL_PRICE_INPUT !== undefined || env.MODEL_PRICE_OUTPUT !== undefined
        ? { inputPerMTok: env.MODEL_PRICE_INPUT ?? 0, outputPerMTok: env.MODEL_PRICE_OUTPUT ?? 0 }
        : undefined,
    log,
  });
  return { runtime, appInfo: { modelLabel: model.label, demo: model.isDemo, passwordProtected: Boolean(env.APP_PASSWORD) } };
}

function chooseModel(env: Env, name: string | undefined): ChatModel {
  if (!name) return createDemoModel({ chunkDelayMs: env.DEMO_CHUNK_DELAY_MS });
  return createOpenAIModel({
    baseURL: env.OPENAI_BASE_URL,
    apiKey: env.OPENAI_API_KEY,
    model: name,
    timeoutMs: env.MODEL_TIMEOUT_MS,
    maxRetries: env.MODEL_MAX_RETRIES,
  });
}
