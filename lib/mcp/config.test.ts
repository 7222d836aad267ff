import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { McpConfigError, parseMcpConfig, parseMcpConfigText } from "./config";

describe("MCP config", () => {
  it("reads stdio and Streamable HTTP servers from YAML, with defaults filled in", () => {
    const servers = parseMcpConfigText(
      [
        "servers:",
        "  files:",
        "    command: node",
        "    args: [server.js]",
        "    env: { ROOT: /tmp }",
        "  web:",
        "    url: http://127.0.0.1:9/mcp",
        "    headers: { Authorization: Bearer x }",
        "    timeoutMs: 5000",
        "    requireApproval: [fetch_*]",
      ].join("\n"),
      "mcp.yaml",
    );
    expect(servers).toEqual([
      {
        name: "files",
        transport: "stdio",
        command: "node",
        args: ["server.js"],
        env: { ROOT: "/tmp" },
        timeoutMs: 60_000,
        enabled: true,
      },
      {
        name: "web",
        transport: "http",
        url: "http://127.0.0.1:9/mcp",
        headers: { Authorization: "Bearer x" },
        timeoutMs: 5000,
        requireApproval: ["fetch_*"],
        enabled: true,
      },
    ]);
  });

  it("reads JSON files as JSON", () => {
    expect(parseMcpConfigText('{"servers":{"a":{"command":"x"}}}', "mcp.json")).toHaveLength(1);
    expect(() => parseMcpConfigText("servers: {}", "mcp.json")).toThrow(/not valid JSON/);
  });

  it("lists every problem of a broken file in one error, each with its path", () => {
    let error: unknown;
    try {
      parseMcpConfig({
        servers: {
          Files: { command: "x" },
          both: { command: "x", url: "http://a" },
          neither: { args: [] },
          badurl: { url: "ftp://example.com" },
          badtimeout: { command: "x", timeoutMs: -1, extra: true },
        },
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(McpConfigError);
    const message = (error as Error).message;
    expect(message).toContain("servers.Files");
    expect(message).toMatch(/servers\.both: has both "command" and "url"/);
    expect(message).toMatch(/servers\.neither: needs either "command"/);
    expect(message).toMatch(/servers\.badurl\.url/);
    expect(message).toMatch(/servers\.badtimeout\.timeoutMs/);
    expect(message).toMatch(/servers\.badtimeout: .*extra/);
  });

  it("reads servers each person signs in to: oauth true, or a configured client; no shared Authorization beside it", () => {
    const servers = parseMcpConfig({
      servers: {
        dynamic: { url: "https://mcp.example.com/mcp", oauth: true },
        configured: {
          url: "https://tools.example.com/mcp",
          oauth: { clientId: "delegate", clientSecretEnv: "TOOLS_SECRET", scopes: ["read"] },
        },
      },
    });
    expect(servers.map((s) => s.transport === "http" && s.oauth)).toEqual([
      true,
      { clientId: "delegate", clientSecretEnv: "TOOLS_SECRET", scopes: ["read"] },
    ]);
    let error: unknown;
    try {
      parseMcpConfig({
        servers: {
          local: { command: "x", oauth: true },
          shared: { url: "https://a.example/mcp", oauth: true, headers: { authorization: "Bearer x" } },
          lowercase: { url: "https://a.example/mcp", oauth: { clientId: "c", clientSecretEnv: "not a name" } },
        },
      });
    } catch (e) {
      error = e;
    }
    const message = (error as Error).message;
    expect(message).toMatch(/servers\.local: .*oauth/);
    expect(message).toMatch(/servers\.shared\.headers: a server with oauth gets each person's own token/);
    expect(message).toMatch(/servers\.lowercase\.oauth\.clientSecretEnv: must be an environment variable's name/);
  });

  it("refuses a file without servers, and YAML that does not parse, with a sentence", () => {
    expect(() => parseMcpConfig({ tools: {} })).toThrow(/servers: /);
    expect(() => parseMcpConfigText("servers: [unclosed", "mcp.yaml")).toThrow(/not valid YAML/);
  });

  it("validates the example file the README points to", () => {
    const servers = parseMcpConfigText(readFileSync("mcp.example.yaml", "utf8"), "mcp.example.yaml");
    expect(servers.map((s) => [s.name, s.transport, s.enabled])).toEqual([
      ["files", "stdio", true],
      ["search", "http", false],
      ["tracker", "http", false],
    ]);
  });
});
