import { describe, expect, it } from "vitest";
import { createDemoModel } from "@/lib/model/demo-model";
import { createOpenAIModel } from "@/lib/model/openai-adapter";
import { parseSubagentDefinitions, SubagentConfigError, type ModelRef } from "./definitions";
import { createAgentRuntime } from "./runtime";
import { checkModelKeys, createModelResolver, unpricedModels } from "./run-models";

const chat = createOpenAIModel({ baseURL: "http://127.0.0.1:9/v1", model: "master", timeoutMs: 1_000, maxRetries: 0 });
const system = createOpenAIModel({ baseURL: "http://127.0.0.1:9/v1", model: "cheap", timeoutMs: 1_000, maxRetries: 0 });
const pricing = { inputPerMTok: 1, outputPerMTok: 2 };
const def = (name: string, model: unknown) => ({ name, description: "d", systemPrompt: "p", model });

const definitions = parseSubagentDefinitions([
  def("a", "chat"),
  def("b", "system"),
  def("c", {
    name: "big",
    baseURL: "https://models.example.com/v1",
    apiKeyEnv: "BIG_KEY",
    prices: { inputPerMTok: 10, outputPerMTok: 30 },
  }),
  def("d", { name: "big", baseURL: "https://models.example.com/v1", apiKeyEnv: "BIG_KEY", label: "Big (for d)" }),
  def("e", { name: "big", baseURL: "https://other.example.com/v1", apiKeyEnv: "BIG_KEY" }),
  def("f", { name: "big", baseURL: "https://models.example.com/v1", apiKeyEnv: "OTHER_KEY" }),
]);

describe("createModelResolver", () => {
  it('runs "chat" on the master\'s model and "system" on the system model, both at the configured prices', () => {
    const modelFor = createModelResolver(definitions, { chat, system, pricing, connect: (ref) => openRef(ref) });
    expect(modelFor(definitions[0]!)).toEqual({ model: chat, pricing, label: "master via 127.0.0.1:9" });
    expect(modelFor(definitions[1]!)).toEqual({ model: system, pricing, label: "cheap via 127.0.0.1:9" });
  });

  it("opens one model per endpoint, model and key variable, at startup, shared by the definitions that name it, each with its own prices and label", () => {
    const opened: ModelRef[] = [];
    const modelFor = createModelResolver(definitions, { chat, system, pricing, connect: (ref) => (opened.push(ref), openRef(ref)) });
    // Opened when the resolver is made, before any run: c and d share one.
    expect(opened.map((r) => [r.baseURL, r.apiKeyEnv])).toEqual([
      ["https://models.example.com/v1", "BIG_KEY"],
      ["https://other.example.com/v1", "BIG_KEY"],
      ["https://models.example.com/v1", "OTHER_KEY"],
    ]);
    const [c, d, e] = [modelFor(definitions[2]!), modelFor(definitions[3]!), modelFor(definitions[4]!)];
    expect(opened).toHaveLength(3);
    expect(c.model).toBe(d.model);
    expect(e.model).not.toBe(c.model);
    expect(c).toMatchObject({ pricing: { inputPerMTok: 10, outputPerMTok: 30 }, label: "big via models.example.com" });
    expect(d).toMatchObject({ pricing: undefined, label: "Big (for d)" });
  });

  it("without a way to open models, a definition with its own model stops the runtime from being created", () => {
    const build = () =>
      createAgentRuntime({
        model: createDemoModel({ chunkDelayMs: 0 }),
        tools: [],
        definitions,
        workspaceDir: ".",
        limits: {
          maxSpawnDepth: 3,
          maxChildrenPerAgent: 5,
          maxResultTokens: 4_000,
          subagentTimeoutMs: 1_000,
          maxSteps: 5,
          contextTokens: 100_000,
          resultFooter: true,
          turnTimeoutMs: 10_000,
        },
      });
    expect(build).toThrow(SubagentConfigError);
    expect(build).toThrow('No endpoint can be opened for model "big"');
  });
});

describe("checkModelKeys", () => {
  it("names every definition whose key variable is unset or blank, and passes when all are set", () => {
    expect(() => checkModelKeys(definitions, (name) => (name === "BIG_KEY" ? " " : undefined))).toThrow(
      /c: model.apiKeyEnv names BIG_KEY, which is not set\n {2}d: [^\n]*BIG_KEY[\s\S]*e: [^\n]*BIG_KEY[\s\S]*f: model.apiKeyEnv names OTHER_KEY/,
    );
    expect(() => checkModelKeys(definitions, () => "sk-set")).not.toThrow();
    const remote = parseSubagentDefinitions([{ name: "w", a2a: { cardUrl: "https://a.example/card", bearerTokenEnv: "W_TOKEN" } }]);
    expect(() => checkModelKeys(remote, () => undefined)).toThrow(/w: a2a.bearerTokenEnv names W_TOKEN, which is not set/);
  });

  it("lists the own-model definitions without prices, whose cost will read $0", () => {
    expect(unpricedModels(definitions)).toEqual(["d", "e", "f"]);
  });
});

function openRef(ref: ModelRef) {
  return createOpenAIModel({ baseURL: ref.baseURL, model: ref.name, timeoutMs: 1_000, maxRetries: 0 });
}
