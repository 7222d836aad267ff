import { readFileSync } from "node:fs";
import path from "node:path";
import { createAgentRuntime, type AgentRuntime } from "@/lib/agent/runtime";
import {
  BUILTIN_DEFINITIONS,
  SubagentConfigError,
  mergeDefinitions,
  parseSubagentDefinitions,
  type ModelRef,
  type SubagentDefinition,
} from "@/lib/agent/definitions";
import { checkModelKeys, createModelResolver, unpricedModels } from "@/lib/agent/run-models";
import type { AppInfo, Budget } from "@/lib/contracts";
import { variable, type Env } from "@/lib/env";
import { createDemoModel } from "@/lib/model/demo-model";
import { createOpenAIModel } from "@/lib/model/openai-adapter";
import type { ChatModel } from "@/lib/model/types";
import { createWorkspaceTools } from "@/lib/tools";
import type { Logger } from "@/lib/log";
import type { TurnTracer } from "@/lib/telemetry/turn-tracer";
import { checkEndpointKeys, EndpointsConfigError, parseEndpointsFile } from "@/lib/catalog/endpoints-config";
import { hostOf } from "@/lib/catalog/listing";
import { modelKey, optionLabel } from "@/lib/contracts/catalog";
import { ModelCatalogService, type CatalogEndpoint } from "@/server/catalog/model-catalog";
import { createMcpManager, loadMcpConfig, type McpManager } from "@/server/mcp/manager";
import { createA2ATransport } from "@/server/remote-agents/a2a-transport";
import { createCardCache, DEFAULT_CARD_TTL_MS, fetchCardGuarded } from "@/server/remote-agents/card-cache";
import { createRemoteSignIns } from "@/server/remote-agents/remote-sign-in";
import type { SignInDeps } from "@/server/oauth/person-sign-in";
import { createSignInTargets, type SignInTargets } from "@/server/oauth/sign-in-targets";

/**
 * Wires the agent runtime from configuration: the model (an OpenAI-compatible endpoint
 * when MODEL is set, else the offline demo model), the workspace tools and the subagent
 * definitions (built-ins plus SUBAGENTS_FILE), each subagent on the model its definition
 * names (a remote A2A agent for a definition with `a2a`), and the MCP servers of MCP_CONFIG_FILE, whose tools join the workspace tools as
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
  /** Traces every turn (server/telemetry/, when OTEL_* turns tracing on); absent: no tracing. */
  tracer?: TurnTracer,
  /** Where people's sign-ins to MCP servers and remote agents with `oauth` are kept (server/oauth/). */
  signInDeps?: SignInDeps,
): {
  runtime: AgentRuntime;
  /** A function: asked per person, whose own MCP servers (`oauth`) it opens first. */
  appInfo: AppInfo | ((ownerId?: string) => AppInfo | Promise<AppInfo>);
  mcp?: McpManager;
  /** What people sign in to (MCP servers, remote agents), for the sign-in routes; absent when nothing is. */
  signIns?: SignInTargets;
  catalog: ModelCatalogService;
  /** The operator's definitions (built-ins and SUBAGENTS_FILE): the app lists them read-only. */
  definitions: SubagentDefinition[];
} {
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
  const mcp = env.MCP_CONFIG_FILE
    ? createMcpManager(loadMcpConfig(env.MCP_CONFIG_FILE), { log, ...(signInDeps ? { signIns: signInDeps } : {}) })
    : undefined;
  // One cache of agent cards: runs read their endpoint from it, sign-ins where to sign in.
  const cards = createCardCache({
    allowedHosts: env.A2A_ALLOWED_HOSTS,
    ttlMs: DEFAULT_CARD_TTL_MS,
    fetchCard: fetchCardGuarded,
    now: Date.now,
  });
  const remoteSignIns = remoteSignInsOf(configured, signInDeps, (cardUrl, signal) => cards.get(cardUrl, true, signal));
  const runtime = createAgentRuntime({
    model,
    systemModel,
    tools: mcp ? (toolsFor) => [...workspaceTools, ...mcp.tools(toolsFor)] : workspaceTools,
    ...(mcp ? { prepareTools: (toolsFor: string) => mcp.prepare(toolsFor) } : {}),
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
      remoteIdleMs: env.A2A_IDLE_TIMEOUT_MS,
      ...turnBudgetOf(env),
    },
    pricing,
    modelFor,
    remoteAgents: createA2ATransport({ allowedHosts: env.A2A_ALLOWED_HOSTS, cards, ...(remoteSignIns ? { signIns: remoteSignIns } : {}) }),
    log,
    ...(tracer ? { tracer } : {}),
  });
  const catalog = buildCatalog(env, model, pricing, lookup, log);
  const appInfo: AppInfo = {
    modelLabel: model.label,
    demo: model.isDemo && !env.ENDPOINTS_FILE,
    passwordProtected: Boolean(env.APP_PASSWORD),
    contextTokens: env.CONTEXT_TOKENS,
    attachmentMaxBytes: env.ATTACHMENT_MAX_BYTES,
    ...turnBudgetOf(env),
    ...(env.A2A_SERVER_ENABLED ? { a2aServer: true } : {}),
  };
  const perPerson =
    mcp || remoteSignIns
      ? async (ownerId?: string): Promise<AppInfo> => {
          if (ownerId && mcp) await mcp.prepare(ownerId);
          return {
            ...appInfo,
            ...(mcp ? { mcpServers: mcp.servers(ownerId) } : {}),
            ...(remoteSignIns ? { remoteAgents: ownerId ? await remoteSignIns.list(ownerId) : await remoteSignIns.list("") } : {}),
          };
        }
      : undefined;
  const signIns =
    signInDeps && (mcp || remoteSignIns)
      ? createSignInTargets({ ...(mcp ? { mcp } : {}), ...(remoteSignIns ? { remote: remoteSignIns } : {}) }, signInDeps)
      : undefined;
  return { runtime, appInfo: perPerson ?? appInfo, mcp, ...(signIns ? { signIns } : {}), catalog, definitions };
}

/** The operator's remote agents that people sign in to; undefined when there are none (or nowhere to keep sign-ins). */
function remoteSignInsOf(
  configured: readonly SubagentDefinition[],
  deps: SignInDeps | undefined,
  readCard: Parameters<typeof createRemoteSignIns>[1]["readCard"],
) {
  const agents = configured.flatMap((d) => (d.a2a?.oauth ? [{ name: d.name, ref: d.a2a }] : []));
  if (agents.length === 0) return undefined;
  if (!deps) throw new SubagentConfigError(`Subagent "${agents[0]!.name}" has a2a.oauth, and this server keeps no sign-ins`);
  return createRemoteSignIns(agents, { ...deps, readCard });
}

/** The id MODEL's endpoint (OPENAI_BASE_URL) has in the catalog. */
export const ENV_ENDPOINT_ID = "default";

/**
 * The models a person may pick: MODEL's endpoint (OPENAI_BASE_URL, OPENAI_API_KEY) when
 * MODEL is set, and every endpoint of ENDPOINTS_FILE; with neither, the offline demo
 * model alone. MODEL's own model is the very one the runtime was built with.
 */
function buildCatalog(
  env: Env,
  model: ChatModel,
  pricing: { inputPerMTok: number; outputPerMTok: number } | undefined,
  lookup: (name: string) => string | undefined,
  log: Pick<Logger, "warn">,
): ModelCatalogService {
  const endpoints: CatalogEndpoint[] = [];
  if (env.MODEL) {
    const baseURL = env.OPENAI_BASE_URL ?? "https://api.openai.com/v1";
    endpoints.push({
      id: ENV_ENDPOINT_ID,
      label: hostOf(baseURL),
      baseURL,
      apiKey: env.OPENAI_API_KEY,
      list: true,
      refreshSeconds: 300,
      models: [{ id: env.MODEL, ...(pricing ? { prices: pricing } : {}) }],
    });
  }
  const file = env.ENDPOINTS_FILE
    ? parseEndpointsFile(readJson(env.ENDPOINTS_FILE, "ENDPOINTS_FILE", EndpointsConfigError), env.ENDPOINTS_FILE)
    : undefined;
  if (file) {
    checkEndpointKeys(file, lookup);
    for (const endpoint of file.endpoints) {
      if (endpoint.id === ENV_ENDPOINT_ID && env.MODEL)
        throw new EndpointsConfigError(
          `Invalid endpoints file: the id "${ENV_ENDPOINT_ID}" is MODEL's endpoint (OPENAI_BASE_URL); name yours otherwise`,
        );
      endpoints.push({ ...endpoint, ...(endpoint.apiKeyEnv ? { apiKey: lookup(endpoint.apiKeyEnv) } : {}) });
    }
  }
  const envKey = env.MODEL ? modelKey(ENV_ENDPOINT_ID, env.MODEL) : undefined;
  const catalog = new ModelCatalogService({
    endpoints,
    defaultKey: file?.default ?? envKey,
    demo: endpoints.length === 0 ? model : undefined,
    open: (endpoint, option) =>
      option.key === envKey
        ? model
        : createOpenAIModel({
            baseURL: endpoint.baseURL,
            apiKey: endpoint.apiKey,
            model: option.key.slice(endpoint.id.length + 1),
            timeoutMs: env.MODEL_TIMEOUT_MS,
            maxRetries: env.MODEL_MAX_RETRIES,
            label: optionLabel(option),
          }),
    log,
  });
  catalog.warm();
  return catalog;
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
  return readJson(file, "SUBAGENTS_FILE", SubagentConfigError);
}

/** A configuration file's JSON, or the given error naming the variable and the file, and what is wrong. */
function readJson(file: string, variableName: string, Failure: new (message: string) => Error): unknown {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new Failure(`${variableName} ${file} cannot be read: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Failure(`${variableName} ${file} is not valid JSON: ${(error as Error).message}`);
  }
}

/** TURN_BUDGET_TOKENS and TURN_BUDGET_USD as a turn's default budget; neither set: none. */
export function turnBudgetOf(env: Pick<Env, "TURN_BUDGET_TOKENS" | "TURN_BUDGET_USD">): { turnBudget?: Budget } {
  const { TURN_BUDGET_TOKENS: tokens, TURN_BUDGET_USD: usd } = env;
  if (tokens === undefined && usd === undefined) return {};
  return { turnBudget: { ...(tokens !== undefined ? { tokens } : {}), ...(usd !== undefined ? { usd } : {}) } };
}
