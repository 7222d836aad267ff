import { modelKey, type ModelOption, type ModelPrices } from "@/lib/contracts/catalog";
import type { ConfiguredModel, EndpointConfig } from "./endpoints-config";

/**
 * What an endpoint's `GET /models` says it serves, read leniently: the OpenAI shape
 * (`{ data: [{ id }] }`) is all most servers give, and a few add what a picker wants to
 * show, each in its own words: OpenRouter `context_length`, `pricing` (USD per token, as
 * strings) and `architecture.input_modalities`; vLLM `max_model_len`; Groq
 * `context_window`. The body is the endpoint's, so untrusted: an entry whose id is not
 * printable text is skipped, and at most `MAX_LISTED` are kept.
 */

export const MAX_LISTED = 2_000;
const MODEL_ID = /^[\x21-\x7e]{1,200}$/;

export interface ListedModel {
  id: string;
  contextTokens?: number;
  images?: boolean;
  prices?: ModelPrices;
}

export function readModelList(body: unknown): ListedModel[] {
  const data = isRecord(body) && Array.isArray(body.data) ? body.data : undefined;
  if (!data) throw new Error('the reply is not a model list (no "data" array)');
  const models: ListedModel[] = [];
  const seen = new Set<string>();
  for (const entry of data) {
    if (models.length >= MAX_LISTED) break;
    if (!isRecord(entry) || typeof entry.id !== "string" || !MODEL_ID.test(entry.id) || seen.has(entry.id)) continue;
    seen.add(entry.id);
    const model: ListedModel = { id: entry.id };
    const context = [entry.context_length, entry.max_model_len, entry.context_window].find(isTokenCount);
    if (context !== undefined) model.contextTokens = context;
    const modalities = isRecord(entry.architecture) ? entry.architecture.input_modalities : undefined;
    if (Array.isArray(modalities)) model.images = modalities.includes("image");
    const prices = isRecord(entry.pricing) ? perMillion(entry.pricing.prompt, entry.pricing.completion) : undefined;
    if (prices) model.prices = prices;
    models.push(model);
  }
  return models;
}

/**
 * An endpoint's models as the picker offers them: the configured ones first, in the
 * operator's order, with what the operator said winning over what the endpoint listed;
 * then the rest of the listing, by id.
 */
export function endpointModels(endpoint: EndpointConfig, listed: readonly ListedModel[] | undefined): ModelOption[] {
  const endpointLabel = endpoint.label ?? hostOf(endpoint.baseURL);
  const byId = new Map((listed ?? []).map((m) => [m.id, m]));
  const configuredIds = new Set(endpoint.models.map((m) => m.id));
  const option = (configured: ConfiguredModel | undefined, listing: ListedModel | undefined, id: string): ModelOption => {
    const contextTokens = configured?.contextTokens ?? listing?.contextTokens;
    const prices = configured?.prices ?? listing?.prices;
    return {
      key: modelKey(endpoint.id, id),
      label: configured?.label ?? id,
      endpointId: endpoint.id,
      endpointLabel,
      images: configured?.images ?? listing?.images ?? false,
      ...(contextTokens !== undefined ? { contextTokens } : {}),
      ...(prices ? { prices } : {}),
    };
  };
  const rest = [...byId.values()].filter((m) => !configuredIds.has(m.id)).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return [...endpoint.models.map((m) => option(m, byId.get(m.id), m.id)), ...rest.map((m) => option(undefined, m, m.id))];
}

export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

function perMillion(input: unknown, output: unknown): ModelPrices | undefined {
  const a = Number(input);
  const b = Number(output);
  if (typeof input !== "string" && typeof input !== "number") return undefined;
  if (!Number.isFinite(a) || !Number.isFinite(b) || a < 0 || b < 0) return undefined;
  // Rounded to a millionth of a dollar per million tokens: "0.00000015" * 1e6 is 0.15000000000000002.
  return { inputPerMTok: Math.round(a * 1e12) / 1e6, outputPerMTok: Math.round(b * 1e12) / 1e6 };
}

function isTokenCount(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value > 0 && value <= 100_000_000;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
