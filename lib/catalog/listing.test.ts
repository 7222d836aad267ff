import { describe, expect, it } from "vitest";
import { parseEndpointsFile } from "./endpoints-config";
import { endpointModels, readModelList } from "./listing";

describe("readModelList", () => {
  it("reads the OpenAI shape and what OpenRouter, vLLM and Groq add in their own words", () => {
    const models = readModelList({
      object: "list",
      data: [
        { id: "gpt-4o-mini", object: "model" },
        {
          id: "openai/gpt-4o",
          context_length: 128_000,
          pricing: { prompt: "0.0000025", completion: "0.00001" },
          architecture: { input_modalities: ["text", "image"] },
        },
        { id: "meta-llama/Llama-3.1-8B", max_model_len: 8192 },
        { id: "llama-3.3-70b", context_window: 131_072, architecture: { input_modalities: ["text"] } },
      ],
    });
    expect(models).toEqual([
      { id: "gpt-4o-mini" },
      { id: "openai/gpt-4o", contextTokens: 128_000, images: true, prices: { inputPerMTok: 2.5, outputPerMTok: 10 } },
      { id: "meta-llama/Llama-3.1-8B", contextTokens: 8192 },
      { id: "llama-3.3-70b", contextTokens: 131_072, images: false },
    ]);
  });

  it("skips what an endpoint should not have sent: ids that are not printable text, repeats, nonsense figures", () => {
    const models = readModelList({
      data: [
        { id: "ok" },
        { id: "ok" },
        { id: "has space" },
        { id: "" },
        { id: "x".repeat(201) },
        { id: { $gt: "" } },
        null,
        "string",
        { id: "bad-figures", context_length: -5, pricing: { prompt: "free", completion: "0" } },
      ],
    });
    expect(models).toEqual([{ id: "ok" }, { id: "bad-figures" }]);
  });

  it("refuses a reply that is not a model list", () => {
    expect(() => readModelList({ models: [] })).toThrow(/not a model list/);
    expect(() => readModelList([])).toThrow(/not a model list/);
  });
});

describe("endpointModels", () => {
  const endpoint = parseEndpointsFile({
    endpoints: [
      {
        id: "local",
        label: "Ollama",
        baseURL: "http://localhost:11434/v1",
        models: [{ id: "llava", label: "LLaVA", images: true }, { id: "not-listed" }],
      },
    ],
  }).endpoints[0]!;

  it("puts the configured models first, in the operator's order, what the operator said winning, then the rest of the listing by id", () => {
    const options = endpointModels(endpoint, [{ id: "zeta" }, { id: "llava", images: false, contextTokens: 4096 }, { id: "alpha" }]);
    expect(options.map((o) => o.key)).toEqual(["local/llava", "local/not-listed", "local/alpha", "local/zeta"]);
    expect(options[0]).toEqual({
      key: "local/llava",
      label: "LLaVA",
      endpointId: "local",
      endpointLabel: "Ollama",
      images: true,
      contextTokens: 4096,
    });
  });

  it("offers the configured names alone when nothing was listed", () => {
    expect(endpointModels(endpoint, undefined).map((o) => o.key)).toEqual(["local/llava", "local/not-listed"]);
  });
});

describe("parseEndpointsFile", () => {
  it("names every field that is wrong, in one error", () => {
    expect(() =>
      parseEndpointsFile({
        default: "no-slash",
        endpoints: [
          { id: "Bad Id", baseURL: "ftp://x" },
          { id: "a", baseURL: "http://a/v1", apiKeyEnv: "sk-live-123" },
          { id: "a", baseURL: "http://b/v1" },
        ],
      }),
    ).toThrow(
      /endpoints\.0\.id: must be lowercase[\s\S]*endpoints\.0\.baseURL: must be an http\(s\) URL[\s\S]*endpoints\.1\.apiKeyEnv: must be the NAME[\s\S]*endpoints\.2\.id: "a" is used twice[\s\S]*default: must be "<endpoint id>\/<model id>"/,
    );
  });
});

describe("modelDetails", () => {
  it("says a model's context, whether it reads images and its prices, briefly", async () => {
    const { modelDetails } = await import("./describe");
    expect(modelDetails({ contextTokens: 128_000, images: true, prices: { inputPerMTok: 0.15, outputPerMTok: 0.6 } })).toBe(
      "128k context · images · $0.15 / $0.6 per M tokens",
    );
    expect(modelDetails({ contextTokens: 1_048_576, images: false, prices: { inputPerMTok: 2.5, outputPerMTok: 10 } })).toBe(
      "1M context · $2.50 / $10 per M tokens",
    );
    expect(modelDetails({ images: false })).toBe("");
  });
});
