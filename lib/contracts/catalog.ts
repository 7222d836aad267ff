import { z } from "zod";
import { wellFormed } from "./well-formed";

/**
 * The models a person may choose for a chat's master, from every endpoint the operator
 * configured (see docs/models.md). A model is named by its key, `<endpoint id>/<model id>`:
 * the endpoint id is a short slug, so the first `/` splits them even when the model id has
 * slashes of its own (`meta-llama/Llama-3.1-8B`).
 */

/** USD per million tokens, as providers publish prices. */
export const modelPricesSchema = z.object({
  inputPerMTok: z.number().nonnegative(),
  outputPerMTok: z.number().nonnegative(),
});
export type ModelPrices = z.infer<typeof modelPricesSchema>;

export interface ModelOption {
  key: string;
  /** The model's own label (its id unless the operator named it). */
  label: string;
  endpointId: string;
  endpointLabel: string;
  /** Its context window in tokens, when the endpoint or the operator said. */
  contextTokens?: number;
  /** It reads images (an image attachment goes to it as an image part). */
  images: boolean;
  prices?: ModelPrices;
  /** The offline demo model, a scripted stand-in. */
  demo?: boolean;
}

export interface EndpointStatus {
  id: string;
  label: string;
  /** `listed`: its models came from `GET /models`; `configured`: the operator's names only; `failed`: listing failed, its configured names stand. */
  source: "listed" | "configured" | "failed";
  error?: string;
}

export interface ModelCatalog {
  models: ModelOption[];
  /** The key a chat without a choice of its own, of a person without a default, runs on. */
  defaultKey: string;
  endpoints: EndpointStatus[];
}

/** Per-chat instructions: a short text added to the master's system prompt for this chat. */
export const MAX_INSTRUCTIONS_CHARS = 4_000;

export const modelKeySchema = z
  .string()
  .min(3)
  .max(300)
  .regex(/^[a-z0-9][a-z0-9_-]{0,39}\/[\x21-\x7e]+$/, "must be a model key: <endpoint>/<model>");

/** What a person set for one chat: the master's model (its key) and the chat's instructions ("" for none). */
export interface ChatSettings {
  model: string;
  instructions: string;
}

/** A change to a chat's settings; each field present is set (instructions "" clears them). */
export const chatSettingsInputSchema = z.strictObject({
  sessionId: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[A-Za-z0-9_-]+$/, "must be an id"),
  model: modelKeySchema.optional(),
  instructions: z
    .string()
    .max(MAX_INSTRUCTIONS_CHARS, `must be at most ${MAX_INSTRUCTIONS_CHARS} characters`)
    .transform((text) => wellFormed(text.trim()))
    .optional(),
});
export type ChatSettingsInput = z.infer<typeof chatSettingsInputSchema>;

/** The endpoint id and the model id of a key (the first `/` splits them). */
export function splitModelKey(key: string): { endpointId: string; modelId: string } | undefined {
  const slash = key.indexOf("/");
  if (slash <= 0 || slash === key.length - 1) return undefined;
  return { endpointId: key.slice(0, slash), modelId: key.slice(slash + 1) };
}

export function modelKey(endpointId: string, modelId: string): string {
  return `${endpointId}/${modelId}`;
}

/** What a turn's figures and panels name: the model's label and where it runs. */
export function optionLabel(option: Pick<ModelOption, "label" | "endpointLabel" | "demo">): string {
  return option.demo ? option.label : `${option.label} via ${option.endpointLabel}`;
}
