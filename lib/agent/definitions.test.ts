import { describe, expect, it } from "vitest";
import { REMOTE_PLACEHOLDERS } from "@/lib/remote-agents/remote-ref";
import { BUILTIN_DEFINITIONS, SubagentConfigError, isCatalogModel, mergeDefinitions, parseSubagentDefinitions } from "./definitions";

describe("subagent definitions", () => {
  it("ships a read-only explore and a general worker that may spawn", () => {
    const [explore, general] = BUILTIN_DEFINITIONS;
    expect(explore).toMatchObject({
      name: "explore",
      allowedTools: ["list_files", "grep", "file_read", "url_fetch"],
      parallelizable: true,
    });
    expect(explore!.allowedTools).not.toContain("subagent");
    expect(general).toMatchObject({ name: "general", model: "chat" });
    expect(general!.allowedTools).toContain("subagent");
  });

  it("parses a config file (array or { subagents }) with defaults, reads the old maxTurns as maxSteps, and lets it override a built-in", () => {
    const parsed = parseSubagentDefinitions({
      subagents: [
        { name: "reviewer", description: "Reviews code", systemPrompt: "You review.", allowedTools: ["file_read"] },
        { name: "explore", description: "Custom explore", systemPrompt: "Explore differently.", maxTurns: 3 },
      ],
    });
    expect(parsed[0]).toEqual({
      name: "reviewer",
      description: "Reviews code",
      systemPrompt: "You review.",
      allowedTools: ["file_read"],
      model: "chat",
      maxSteps: 12,
      parallelizable: true,
    });
    const merged = mergeDefinitions(BUILTIN_DEFINITIONS, parsed);
    expect(merged.map((d) => d.name)).toEqual(["explore", "general", "reviewer"]);
    expect(merged[0]).toMatchObject({ description: "Custom explore", maxSteps: 3 });
    expect(merged[0]).not.toHaveProperty("maxTurns");
    expect(parseSubagentDefinitions([])).toEqual([]);
  });

  it("parses a remote A2A agent by its card alone: its card describes it, it has no prompt of its own, follow-ups off", () => {
    const [remote] = parseSubagentDefinitions([
      { name: "warehouse", a2a: { cardUrl: "https://agents.example.com/.well-known/agent-card.json" } },
    ]);
    expect(remote).toMatchObject({
      name: "warehouse",
      description: REMOTE_PLACEHOLDERS.description,
      systemPrompt: REMOTE_PLACEHOLDERS.systemPrompt,
      a2a: { cardUrl: "https://agents.example.com/.well-known/agent-card.json", followUps: false },
    });
    const [described] = parseSubagentDefinitions([
      { name: "w", description: "Sales figures", a2a: { cardUrl: "http://10.0.0.5/card", followUps: true } },
    ]);
    expect(described).toMatchObject({ description: "Sales figures", a2a: { followUps: true } });
    expect(() => parseSubagentDefinitions([{ name: "x", a2a: { cardUrl: "ftp://agents.example.com/card" } }])).toThrow(
      /0\.a2a\.cardUrl: must be the http\(s\) URL/,
    );
    expect(() =>
      parseSubagentDefinitions([{ name: "x", a2a: { cardUrl: "https://a.example/card", bearerTokenEnv: "sk-live-123" } }]),
    ).toThrow(/a2a\.bearerTokenEnv: must be the NAME of an environment variable/);
    expect(() => parseSubagentDefinitions([{ name: "x", a2a: { cardUrl: "https://a.example/card", token: "t" } }])).toThrow(/a2a/);
  });

  it("rejects invalid definitions, listing every problem", () => {
    const attempt = () => parseSubagentDefinitions([{ name: "Bad Name", description: "", systemPrompt: "x", model: "gpt" }]);
    expect(attempt).toThrow(SubagentConfigError);
    expect(attempt).toThrow(/0\.name: must be lowercase[\s\S]*0\.description[\s\S]*0\.model/);
    expect(() =>
      parseSubagentDefinitions([
        { name: "a", description: "d", systemPrompt: "p" },
        { name: "a", description: "d", systemPrompt: "p" },
      ]),
    ).toThrow('"a" is defined twice');
    expect(() => parseSubagentDefinitions("nope")).toThrow(SubagentConfigError);
  });

  describe("model", () => {
    const base = { name: "reviewer", description: "Reviews", systemPrompt: "You review." };
    const problems = (model: unknown) => {
      try {
        parseSubagentDefinitions([{ ...base, model }]);
      } catch (error) {
        expect(error).toBeInstanceOf(SubagentConfigError);
        return (error as Error).message;
      }
      throw new Error("expected a SubagentConfigError");
    };

    it('accepts "chat", "system" and a model of its own, trimmed, with optional endpoint, key variable, prices and label', () => {
      expect(parseSubagentDefinitions([{ ...base, model: "system" }])[0]!.model).toBe("system");
      expect(parseSubagentDefinitions([base])[0]!.model).toBe("chat");
      const own = {
        name: " gpt-4o ",
        baseURL: "https://api.openai.com/v1",
        apiKeyEnv: "REVIEWER_API_KEY",
        prices: { inputPerMTok: 2.5, outputPerMTok: 10 },
        label: "GPT-4o (reviewer)",
      };
      expect(parseSubagentDefinitions([{ ...base, model: own }])[0]!.model).toEqual({ ...own, name: "gpt-4o" });
      expect(parseSubagentDefinitions([{ ...base, model: { name: "llama3.1:8b" } }])[0]!.model).toEqual({ name: "llama3.1:8b" });
    });

    it("accepts a model of the model menu by its key, and the key is told apart from chat and system", () => {
      const [definition] = parseSubagentDefinitions([{ ...base, model: "local/meta-llama/Llama-3.1-8B" }]);
      expect(definition!.model).toBe("local/meta-llama/Llama-3.1-8B");
      expect(isCatalogModel(definition!.model)).toBe(true);
      expect(isCatalogModel("chat")).toBe(false);
      expect(isCatalogModel({ name: "m" })).toBe(false);
    });

    it.each([
      [
        "an unknown model name",
        "gpt-4o",
        '0.model: must be "chat", "system", a model key "<endpoint>/<model>" of the model menu, or an object { name, baseURL?, apiKeyEnv?, prices?, label? }',
      ],
      ["a number", 4, '0.model: must be "chat", "system", a model key'],
      ["a model key without its model", "local/", '0.model: must be "chat", "system", a model key'],
      ["an object without a name", { baseURL: "http://localhost:11434/v1" }, "0.model.name: must name the model its endpoint knows"],
      ["a blank name", { name: "  " }, '0.model.name: must name the model its endpoint knows, e.g. "gpt-4o-mini"'],
      ["a base URL that is not http(s)", { name: "m", baseURL: "file:///etc/passwd" }, "0.model.baseURL: must be an http(s) URL"],
      [
        "a key pasted where its variable's name belongs",
        { name: "m", apiKeyEnv: "sk-proj-abc123" },
        "0.model.apiKeyEnv: must be the NAME of an environment variable",
      ],
      ["a negative price", { name: "m", prices: { inputPerMTok: -1, outputPerMTok: 1 } }, "0.model.prices.inputPerMTok: "],
      ["half a price", { name: "m", prices: { inputPerMTok: 1 } }, "0.model.prices.outputPerMTok: "],
      ["a misspelt field", { name: "m", baseUrl: "http://x" }, '0.model: Unrecognized key: "baseUrl"'],
      ["the key itself", { name: "m", apiKey: "sk-123" }, '0.model: Unrecognized key: "apiKey"'],
    ])("rejects %s with a message that names the field", (_what, model, message) => {
      expect(problems(model)).toContain(message);
    });

    it("reports every bad model in a file at once", () => {
      expect(() =>
        parseSubagentDefinitions([
          { ...base, name: "a", model: { name: "" } },
          { ...base, name: "b", model: { name: "m", apiKeyEnv: "not a name" } },
        ]),
      ).toThrow(/0\.model\.name[\s\S]*1\.model\.apiKeyEnv/);
    });
  });
});
