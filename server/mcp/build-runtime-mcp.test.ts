import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { AppInfo } from "@/lib/contracts";
import { parseEnv } from "@/lib/env";
import { McpConfigError } from "@/lib/mcp/config";
import { buildRuntime } from "@/server/agent/build-runtime";
import { HOSTILE, waitFor } from "@/test/support/mcp/servers";
import type { McpManager } from "./manager";

/** MCP_CONFIG_FILE through the server's wiring: a bad file stops the start with every problem; a good one shows in app:info. */

let dir: string | undefined;
let mcp: McpManager | undefined;
afterEach(async () => {
  await mcp?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = mcp = undefined;
});

const log = { warn: () => undefined, info: () => undefined };
async function configFile(name: string, text: string): Promise<string> {
  dir = await mkdtemp(path.join(tmpdir(), "delegate-mcp-config-"));
  const file = path.join(dir, name);
  await writeFile(file, text);
  return file;
}

describe("MCP_CONFIG_FILE at start", () => {
  it("refuses to start on an invalid file, naming the file and every problem", async () => {
    const file = await configFile("mcp.yaml", "servers:\n  Bad Name:\n    command: x\n  web:\n    url: not-a-url\n");
    const start = () => buildRuntime(parseEnv({ MCP_CONFIG_FILE: file }), log);
    expect(start).toThrow(McpConfigError);
    expect(start).toThrow(
      /Invalid MCP config .*mcp\.yaml:\n {2}servers\.Bad Name: a server name must be lowercase.*\n {2}servers\.web\.url: /s,
    );
  });

  it("starts the servers and reports them, with their tools, in app:info", async () => {
    const file = await configFile("mcp.json", JSON.stringify({ servers: { hostile: { command: process.execPath, args: [HOSTILE] } } }));
    const built = buildRuntime(parseEnv({ MCP_CONFIG_FILE: file }), log);
    mcp = built.mcp;
    const info = async () => (typeof built.appInfo === "function" ? await built.appInfo("someone") : built.appInfo) as AppInfo;
    expect((await info()).mcpServers).toEqual([{ name: "hostile", status: "connecting", tools: [] }]);
    await waitFor(() => built.mcp?.servers()[0]?.status === "connected", "the server to connect");
    expect((await info()).mcpServers![0]!.tools.map((t) => t.name)).toContain("hostile.echo");
  });

  it("leaves app:info without servers when no file is set", async () => {
    const built = buildRuntime(parseEnv({}), log);
    expect(built.mcp).toBeUndefined();
    expect(typeof built.appInfo === "function" ? await built.appInfo() : built.appInfo).not.toHaveProperty("mcpServers");
  });
});
