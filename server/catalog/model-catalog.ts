import { MIN_REFRESH_SECONDS, type EndpointConfig } from "@/lib/catalog/endpoints-config";
import { endpointModels, hostOf, type ListedModel } from "@/lib/catalog/listing";
import type { RunModel } from "@/lib/agent/run-models";
import { optionLabel, type EndpointStatus, type ModelCatalog, type ModelOption } from "@/lib/contracts/catalog";
import type { Logger } from "@/lib/log";
import type { ChatModel } from "@/lib/model/types";
import { listModels } from "./list-models";

/**
 * The models a person may pick, from every configured endpoint, and the model each key
 * opens. Listings are cached per endpoint and refreshed in the background once older than
 * the endpoint's `refreshSeconds`: a person opening the picker waits for an endpoint's
 * first listing only (at most `listTimeoutMs`), never for a refresh. An endpoint whose
 * listing fails keeps its last good listing, or its configured names.
 */

export interface CatalogEndpoint extends EndpointConfig {
  /** The key sent to it (read from its `apiKeyEnv` when the catalog was built). */
  apiKey?: string;
}

export interface ModelCatalogDeps {
  endpoints: CatalogEndpoint[];
  /** The default model's key; undefined: the first model offered. */
  defaultKey?: string;
  /** Opens a model of an endpoint (one ChatModel per key, kept). */
  open(endpoint: CatalogEndpoint, option: ModelOption): ChatModel;
  /** Offered alone when no endpoint is configured: the offline demo model. */
  demo?: ChatModel;
  listTimeoutMs?: number;
  fetch?: typeof fetch;
  now?: () => number;
  log?: Pick<Logger, "warn">;
}

export const DEMO_KEY = "demo/demo";
const DEFAULT_LIST_TIMEOUT_MS = 5_000;

interface Listing {
  models?: ListedModel[];
  error?: string;
  fetchedAt?: number;
  pending?: Promise<void>;
}

export class ModelCatalogService {
  private readonly listings = new Map<string, Listing>();
  private readonly opened = new Map<string, RunModel>();
  private readonly now: () => number;

  constructor(private readonly deps: ModelCatalogDeps) {
    this.now = deps.now ?? Date.now;
  }

  /** What the picker offers now. Waits only for endpoints never listed yet. */
  async catalog(): Promise<ModelCatalog> {
    await Promise.all(this.deps.endpoints.map((endpoint) => this.fresh(endpoint)));
    return this.snapshot();
  }

  /** The model a key names, if the catalog offers it. */
  async resolve(key: string): Promise<RunModel | undefined> {
    const { models } = await this.catalog();
    const option = models.find((m) => m.key === key);
    if (!option) return undefined;
    const kept = this.opened.get(key);
    if (kept) return kept;
    const model = option.demo ? this.deps.demo! : this.deps.open(this.endpointOf(option.endpointId)!, option);
    const run: RunModel = {
      model,
      pricing: option.prices,
      label: option.demo ? model.label : optionLabel(option),
      ...(option.images ? { images: true } : {}),
    };
    this.opened.set(key, run);
    return run;
  }

  /** Lists every endpoint once, in the background (at start, so the first picker opens at once). */
  warm(): void {
    for (const endpoint of this.deps.endpoints) void this.fresh(endpoint);
  }

  private snapshot(): ModelCatalog {
    if (this.deps.endpoints.length === 0) {
      const demo = this.deps.demo;
      const models: ModelOption[] = demo
        ? [{ key: DEMO_KEY, label: demo.label, endpointId: "demo", endpointLabel: "offline", images: false, demo: true }]
        : [];
      return { models, defaultKey: DEMO_KEY, endpoints: [] };
    }
    const models: ModelOption[] = [];
    const endpoints: EndpointStatus[] = [];
    for (const endpoint of this.deps.endpoints) {
      const listing = this.listings.get(endpoint.id);
      models.push(...endpointModels(endpoint, listing?.models));
      const label = endpoint.label ?? hostOf(endpoint.baseURL);
      if (!endpoint.list) endpoints.push({ id: endpoint.id, label, source: "configured" });
      else if (listing?.error) endpoints.push({ id: endpoint.id, label, source: "failed", error: listing.error });
      else endpoints.push({ id: endpoint.id, label, source: listing?.models ? "listed" : "configured" });
    }
    const wanted = this.deps.defaultKey;
    const defaultKey = wanted && models.some((m) => m.key === wanted) ? wanted : (models[0]?.key ?? wanted ?? "");
    return { models, defaultKey, endpoints };
  }

  /** Waits for a first listing; starts a refresh of a stale one without waiting. */
  private async fresh(endpoint: CatalogEndpoint): Promise<void> {
    if (!endpoint.list) return;
    const listing = this.listings.get(endpoint.id) ?? {};
    this.listings.set(endpoint.id, listing);
    // A failed listing is tried again sooner than a good one is refreshed.
    const maxAgeMs = (listing.error ? MIN_REFRESH_SECONDS : endpoint.refreshSeconds) * 1000;
    const stale = listing.fetchedAt === undefined || this.now() - listing.fetchedAt >= maxAgeMs;
    if (stale && !listing.pending) listing.pending = this.list(endpoint, listing).finally(() => (listing.pending = undefined));
    if (listing.fetchedAt === undefined) await listing.pending;
  }

  private async list(endpoint: CatalogEndpoint, listing: Listing): Promise<void> {
    try {
      listing.models = await listModels(
        endpoint.baseURL,
        endpoint.apiKey,
        this.deps.listTimeoutMs ?? DEFAULT_LIST_TIMEOUT_MS,
        this.deps.fetch,
      );
      listing.error = undefined;
    } catch (error) {
      // The last good listing stands; the picker says the endpoint did not answer.
      listing.error = (error as Error).message;
      this.deps.log?.warn("Listing an endpoint's models failed", { endpoint: endpoint.id, error: listing.error });
    }
    listing.fetchedAt = this.now();
  }

  private endpointOf(id: string): CatalogEndpoint | undefined {
    return this.deps.endpoints.find((e) => e.id === id);
  }
}
