import { describe, expect, it } from "vitest";
import { APP_DEFINITION_LIMITS, OWN_MODEL_REFUSED, parseDefinitionInput, REMOTE_TOKEN_REFUSED } from "./definition-input";
import { EMPTY_FORM, fieldsOf, formOf, issuesByField, KNOWN_TOOLS } from "./form";

describe("the definition form", () => {
  it("sends what the definitions' schema accepts, and reads it back unchanged", () => {
    const form = {
      ...EMPTY_FORM,
      name: "reviewer",
      description: "Reviews a diff",
      systemPrompt: "You review.",
      tools: ["file_read", "subagent"],
      patterns: "docs.*\n\n github.search ",
      requireApproval: "docs.*",
      maxSteps: "5",
      timeoutSeconds: "90",
      budgetTokens: "2000",
      budgetUsd: "0.5",
      model: "local/llama3",
    };
    const fields = fieldsOf(form);
    expect(fields).toEqual({
      name: "reviewer",
      description: "Reviews a diff",
      systemPrompt: "You review.",
      allowedTools: ["file_read", "subagent", "docs.*", "github.search"],
      requireApproval: ["docs.*"],
      model: "local/llama3",
      maxSteps: 5,
      timeoutMs: 90_000,
      budget: { tokens: 2000, usd: 0.5 },
      parallelizable: true,
    });
    expect(parseDefinitionInput(fields)).toMatchObject({ ok: true });
    expect(formOf(fields, KNOWN_TOOLS)).toEqual({ ...form, patterns: "docs.*\ngithub.search" });
  });

  it("sends a number that does not parse as typed, so the schema names its field", () => {
    const answer = parseDefinitionInput(fieldsOf({ ...EMPTY_FORM, name: "a", description: "d", systemPrompt: "p", maxSteps: "many" }));
    expect(answer.ok ? [] : answer.issues.map((i) => i.path)).toEqual(["maxSteps"]);
  });

  it("shows a budget's refused part under its own box", () => {
    const answer = parseDefinitionInput(
      fieldsOf({ ...EMPTY_FORM, name: "a", description: "d", systemPrompt: "p", budgetTokens: "lots", budgetUsd: "-1" }),
    );
    const issues = issuesByField(answer.ok ? [] : answer.issues);
    expect(issues.budgetTokens?.length).toBe(1);
    expect(issues.budgetUsd?.length).toBe(1);
  });

  it("sends a remote agent by its card alone, which the schema accepts, and opens it again with its card", () => {
    const fields = fieldsOf({ ...EMPTY_FORM, name: "warehouse", remoteCardUrl: " https://agents.example.com/card " });
    expect(fields).toMatchObject({ name: "warehouse", a2a: { cardUrl: "https://agents.example.com/card" } });
    expect(fields).not.toHaveProperty("description");
    expect(fields).not.toHaveProperty("systemPrompt");
    const parsed = parseDefinitionInput(fields);
    expect(parsed.ok).toBe(true);
    expect(formOf(parsed.ok ? parsed.definition : {}, KNOWN_TOOLS).remoteCardUrl).toBe("https://agents.example.com/card");
    expect(issuesByField([{ path: "a2a.cardUrl", message: "must be the http(s) URL of the agent card" }])).toEqual({
      remoteCardUrl: ["cardUrl: must be the http(s) URL of the agent card"],
    });
    expect(fieldsOf({ ...EMPTY_FORM, name: "local", description: "d", systemPrompt: "p" })).not.toHaveProperty("a2a");
  });

  it("never sends a model of its own: such a definition opens on the chat's model", () => {
    expect(fieldsOf(formOf({ model: { name: "gpt-4o", baseURL: "https://api.openai.com/v1" } }, KNOWN_TOOLS)).model).toBe("chat");
  });

  it("refuses a model of its own, and text past the app's sizes, each under its field", () => {
    const base = { name: "a", description: "d", systemPrompt: "p" };
    const own = parseDefinitionInput({ ...base, model: { name: "m", baseURL: "http://169.254.169.254", apiKeyEnv: "OPENAI_API_KEY" } });
    expect(own.ok ? [] : own.issues).toEqual([{ path: "model", message: OWN_MODEL_REFUSED }]);
    const token = parseDefinitionInput({ name: "w", a2a: { cardUrl: "https://attacker.example/card", bearerTokenEnv: "OPENAI_API_KEY" } });
    expect(token.ok ? [] : token.issues).toEqual([{ path: "a2a.bearerTokenEnv", message: REMOTE_TOKEN_REFUSED }]);
    expect(parseDefinitionInput({ name: "w", a2a: { cardUrl: "https://agents.example.com/card" } }).ok).toBe(true);
    const long = parseDefinitionInput({ ...base, systemPrompt: "x".repeat(APP_DEFINITION_LIMITS.systemPrompt + 1) });
    expect(long.ok ? [] : long.issues.map((i) => i.path)).toEqual(["systemPrompt"]);
  });

  it.each([
    [{ path: "name", message: "bad" }, "name", "bad"],
    [{ path: "model.baseURL", message: "must be an http(s) URL" }, "model", "baseURL: must be an http(s) URL"],
    [{ path: "allowedTools.2", message: "too short" }, "patterns", "2: too short"],
    [{ path: "timeoutMs", message: "must be at least 1000" }, "timeoutSeconds", "must be at least 1 s"],
    [{ path: "", message: "whole" }, "form", "whole"],
  ])("puts the issue %o under %s", (issue, field, message) => {
    expect(issuesByField([issue])).toEqual({ [field]: [message] });
  });
});
