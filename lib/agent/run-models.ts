import type { ChatModel } from "@/lib/model/types";
import { isCatalogModel, SubagentConfigError, type ModelRef, type SubagentDefinition } from "./definitions";
import type { Pricing } from "./usage-meter";

/**
 * Which model a subagent runs on, and at what prices: "chat" is the master's model,
 * "system" the system model (both at the configured MODEL_PRICE_*), and a model object
 * its own, at its own prices. Condensation and compaction use the system model whatever
 * the run's model is; only a run's answering model changes.
 */

export interface RunModel {
  model: ChatModel;
  /** Prices of `model`; undefined when nobody said (its tokens then cost 0: unknown, not free). */
  pricing: Pricing | undefined;
  /** What the run's panel shows. */
  label: string;
  /** The model reads images (the catalog's `ModelOption.images`): a prompt's image attachments are shown to it. */
  images?: boolean;
}

export type ModelFor = (definition: SubagentDefinition) => RunModel;

export interface ModelResolverOptions {
  chat: ChatModel;
  system: ChatModel;
  /** MODEL_PRICE_*: the chat model's prices, which the system model shares. */
  pricing?: Pricing;
  /** Opens a definition's own model. Without it, such a definition is a configuration error. */
  connect?: (ref: ModelRef) => ChatModel;
}

/**
 * One `ChatModel` per distinct endpoint, model and key variable, shared by every definition
 * that names it (one HTTP client each, not one per run). Every definition is resolved once
 * here, so a definition that cannot be served fails at startup rather than mid-turn (a
 * model key is the catalog's to open, when a turn starts: see `TurnAgents`).
 */
export function createModelResolver(definitions: readonly SubagentDefinition[], options: ModelResolverOptions): ModelFor {
  const opened = new Map<string, ChatModel>();
  const open = (ref: ModelRef): ChatModel => {
    const key = JSON.stringify([ref.baseURL ?? null, ref.name, ref.apiKeyEnv ?? null]);
    let model = opened.get(key);
    if (!model) {
      if (!options.connect) throw new SubagentConfigError(`No endpoint can be opened for model "${ref.name}" here`);
      model = options.connect(ref);
      opened.set(key, model);
    }
    return model;
  };
  const modelFor: ModelFor = (definition) => {
    const choice = definition.model;
    if (choice === "chat") return { model: options.chat, pricing: options.pricing, label: options.chat.label };
    if (choice === "system") return { model: options.system, pricing: options.pricing, label: options.system.label };
    // A model key is opened through the catalog as each turn starts (the server hands the turn its model).
    if (isCatalogModel(choice)) throw new SubagentConfigError(`The model "${choice}" of "${definition.name}" is not offered now`);
    const model = open(choice);
    return { model, pricing: choice.prices, label: choice.label ?? model.label };
  };
  for (const definition of definitions) if (!isCatalogModel(definition.model)) modelFor(definition);
  return modelFor;
}

/**
 * Every definition whose `apiKeyEnv` names a variable that is unset (or blank), as one
 * error: a missing key is an operator's mistake that would otherwise surface only as an
 * HTTP 401 inside some subagent, hours later. A model that needs no key has no `apiKeyEnv`.
 */
export function checkModelKeys(definitions: readonly SubagentDefinition[], lookup: (name: string) => string | undefined): void {
  const unset = (name: string | undefined) => name !== undefined && !lookup(name)?.trim();
  const problems = definitions.flatMap((d) => [
    ...(typeof d.model === "object" && unset(d.model.apiKeyEnv)
      ? [`  ${d.name}: model.apiKeyEnv names ${d.model.apiKeyEnv}, which is not set`]
      : []),
    ...(unset(d.a2a?.bearerTokenEnv) ? [`  ${d.name}: a2a.bearerTokenEnv names ${d.a2a?.bearerTokenEnv}, which is not set`] : []),
  ]);
  if (problems.length) throw new SubagentConfigError(`Invalid subagent definitions:\n${problems.join("\n")}`);
}

/** Definitions on a model of their own that name no prices: their cost will read $0. */
export function unpricedModels(definitions: readonly SubagentDefinition[]): string[] {
  return definitions.filter((d) => typeof d.model === "object" && !d.model.prices).map((d) => d.name);
}
