import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { SUBAGENT_TOOL_NAME, SubagentConfigError, parseSubagentDefinitions } from "@/lib/agent/definitions";
import { envSchema, parseEnv } from "@/lib/env";
import { createWorkspaceTools } from "@/lib/tools";
import { checkEndpointKeys, EndpointsConfigError, parseEndpointsFile } from "@/lib/catalog/endpoints-config";
import { buildRuntime } from "./build-runtime";

/**
 * The configuration examples an operator copies must be true: the committed definitions
 * file parses and starts, and `.env.example` lists every variable the server reads,
 * including the key variables the example definitions name.
 */

const root = path.resolve(__dirname, "../..");
const EXAMPLE = path.join(root, "subagents.example.json");
const envExample = readFileSync(path.join(root, ".env.example"), "utf8");
const listed = new Set([...envExample.matchAll(/^([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1]!));

describe("subagents.example.json", () => {
  const definitions = parseSubagentDefinitions(JSON.parse(readFileSync(EXAMPLE, "utf8")));

  it("is a valid definitions file whose tools exist and whose key variables .env.example lists", () => {
    expect(definitions.map((d) => d.name)).toEqual(["reviewer", "local-explore", "summarizer"]);
    const tools = new Set([...createWorkspaceTools({ urlFetch: { enabled: true } }).map((t) => t.spec.name), SUBAGENT_TOOL_NAME]);
    for (const d of definitions) for (const tool of d.allowedTools) expect(tools, `${d.name} allows ${tool}`).toContain(tool);
    const keyVariables = definitions.flatMap((d) => (typeof d.model === "object" && d.model.apiKeyEnv ? [d.model.apiKeyEnv] : []));
    expect(keyVariables).toEqual(["REVIEWER_API_KEY"]);
    for (const name of keyVariables) expect(listed).toContain(name);
  });

  it("starts the server's runtime when its key variable is set, and stops it with the variable's name when not", () => {
    const env = parseEnv({ SUBAGENTS_FILE: EXAMPLE });
    const warn = () => undefined;
    expect(() => buildRuntime(env, { warn, info: warn }, (name) => (name === "REVIEWER_API_KEY" ? "sk-example" : undefined))).not.toThrow();
    const missing = () => buildRuntime(env, { warn, info: warn }, () => undefined);
    expect(missing).toThrow(SubagentConfigError);
    expect(missing).toThrow("reviewer: model.apiKeyEnv names REVIEWER_API_KEY, which is not set");
  });
});

describe("endpoints.example.json", () => {
  const file = parseEndpointsFile(JSON.parse(readFileSync(path.join(root, "endpoints.example.json"), "utf8")));

  it("is a valid endpoints file whose default it offers and whose key variables .env.example lists", () => {
    expect(file.endpoints.map((e) => e.id)).toEqual(["ollama", "openrouter"]);
    const [endpointId, ...model] = file.default!.split("/");
    expect(file.endpoints.find((e) => e.id === endpointId)?.models.map((m) => m.id)).toContain(model.join("/"));
    const keyVariables = file.endpoints.flatMap((e) => (e.apiKeyEnv ? [e.apiKeyEnv] : []));
    expect(keyVariables).toEqual(["OPENROUTER_API_KEY"]);
    for (const name of keyVariables) expect(listed).toContain(name);
    expect(() => checkEndpointKeys(file, () => undefined)).toThrow(EndpointsConfigError);
    expect(() => checkEndpointKeys(file, () => "sk-example")).not.toThrow();
  });
});

describe(".env.example", () => {
  it("lists every variable the configuration reads", () => {
    const missing = Object.keys(envSchema.shape).filter((name) => name !== "NODE_ENV" && !listed.has(name));
    expect(missing).toEqual([]);
  });
});
