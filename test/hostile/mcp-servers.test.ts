import { tmpdir } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Tool } from "@/lib/tools/types";
import { createMcpManager, type McpManager } from "@/server/mcp/manager";
import { HOSTILE, stdioServer, waitFor } from "@/test/support/mcp/servers";
import { expand, label, loadCorpus } from "./corpus";
import { checkToolOutcome, runTool, type ToolCase } from "./tool-cases";

/**
 * Hostile MCP servers (test-data/hostile/mcp-tools.json): a real SDK server over stdio
 * with huge outputs, invalid schemas, a slow drip, a crash, names that collide with
 * built-ins or hold markup. Every call ends in text or a ToolError (never a crash), in
 * time, and the tool list agents get is clean.
 */

interface McpCase extends Omit<ToolCase, "tool" | "expect"> {
  names?: boolean;
  tool?: string;
  expect: ToolCase["expect"] & {
    present?: string[];
    absent?: string[];
    noneMatch?: string;
    count?: Record<string, number>;
    maxNameLength?: number;
    schemas?: Record<string, unknown>;
    descriptions?: Record<string, string>;
  };
}

const cases = loadCorpus<McpCase>("mcp-tools.json").cases;
let manager: McpManager;

beforeAll(async () => {
  manager = createMcpManager([stdioServer("hostile", [HOSTILE], { timeoutMs: 1_500 })], { backoff: { initialMs: 200, maxMs: 1_000 } });
  await manager.ready();
});
afterAll(async () => {
  await manager?.close();
});

const tools = (): Tool[] => manager.tools();

describe("hostile MCP servers: the tool list agents get", () => {
  it.each(cases.filter((c) => c.names).map((c) => ({ name: label(c), c })))("$name", ({ c }) => {
    const want = c.expect;
    const names = tools().map((t) => t.spec.name);
    for (const n of want.present ?? []) expect(names).toContain(n);
    for (const n of want.absent ?? []) expect(names).not.toContain(n);
    if (want.noneMatch) expect(names.filter((n) => new RegExp(want.noneMatch!).test(n))).toEqual([]);
    for (const [n, count] of Object.entries(want.count ?? {})) expect(names.filter((x) => x === n)).toHaveLength(count);
    if (want.maxNameLength) expect(Math.max(...names.map((n) => n.length))).toBeLessThanOrEqual(want.maxNameLength);
    for (const [n, schema] of Object.entries(want.schemas ?? {}))
      expect(tools().find((t) => t.spec.name === n)?.spec.parameters).toEqual(schema);
    for (const [n, text] of Object.entries(want.descriptions ?? {}))
      expect(tools().find((t) => t.spec.name === n)?.spec.description).toBe(text);
  });
});

describe("hostile MCP servers: calls end in text or a tool error, in time", () => {
  it.each(cases.filter((c) => c.tool).map((c) => ({ name: label(c), c })))("$name", async ({ c }) => {
    // The crash case restarts the server; every case starts against a connected one.
    await waitFor(() => manager.servers()[0]!.status === "connected", "the hostile server to be connected");
    const tool = tools().find((t) => t.spec.name === c.tool);
    expect(tool, `${c.tool} is offered`).toBeDefined();
    checkToolOutcome(c as ToolCase, await runTool(tool!, expand(c.args), tmpdir()));
  });
});
