import { describe, expect, it } from "vitest";
import { BUILTIN_DEFINITIONS, SubagentConfigError, mergeDefinitions, parseSubagentDefinitions } from "./definitions";

describe("subagent definitions", () => {
  it("ships a read-only explore and a general worker that may spawn", () => {
    const [explore, general] = BUILTIN_DEFINITIONS;
    expect(explore).toMatchObject({ name: "explore", allowedTools: ["list_files", "grep", "file_read", "url_fetch"], parallelizable: true });
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
    expect(parsed[0]).toEqual({ name: "reviewer", description: "Reviews code", systemPrompt: "You review.", allowedTools: ["file_read"], model: "chat", maxSteps: 12, parallelizable: true });
    const merged = mergeDefinitions(BUILTIN_DEFINITIONS, parsed);
    expect(merged.map((d) => d.name)).toEqual(["explore", "general", "reviewer"]);
    expect(merged[0]).toMatchObject({ description: "Custom explore", maxSteps: 3 });
    expect(merged[0]).not.toHaveProperty("maxTurns");
    expect(parseSubagentDefinitions([])).toEqual([]);
  });

  it("rejects invalid definitions, listing every problem", () => {
    const attempt = () => parseSubagentDefinitions([{ name: "Bad Name", description: "", systemPrompt: "x", model: "gpt" }]);
    expect(attempt).toThrow(SubagentConfigError);
    expect(attempt).toThrow(/0\.name: must be lowercase[\s\S]*0\.description[\s\S]*0\.model/);
    expect(() => parseSubagentDefinitions([
      { name: "a", description: "d", systemPrompt: "p" },
      { name: "a", description: "d", systemPrompt: "p" },
    ])).toThrow('"a" is defined twice');
    expect(() => parseSubagentDefinitions("nope")).toThrow(SubagentConfigError);
  });
});
