import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ToolError, type Tool } from "@/lib/tools/types";
import {
  EVERYTHING,
  FILESYSTEM,
  HOSTILE,
  httpServer,
  startEverythingHttp,
  stdioServer,
  waitFor,
  type RunningHttpServer,
} from "@/test/support/mcp/servers";
import { McpConnection } from "./connection";
import { createMcpManager, type McpManager } from "./manager";

/** The MCP client manager against real MCP servers, started here. */

let manager: McpManager | undefined;
let http: RunningHttpServer | undefined;
let dir: string | undefined;
afterEach(async () => {
  await manager?.close();
  await http?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
  manager = http = dir = undefined;
});

const ctx = (signal = new AbortController().signal) => ({ workspaceDir: tmpdir(), signal });
const tool = (m: McpManager, name: string): Tool => {
  const found = m.tools().find((t) => t.spec.name === name);
  if (!found)
    throw new Error(
      `no tool ${name} among ${m
        .tools()
        .map((t) => t.spec.name)
        .join(", ")}`,
    );
  return found;
};
const failure = async (promise: Promise<unknown>): Promise<ToolError> => {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ToolError);
    return error as ToolError;
  }
  throw new Error("expected a tool error");
};
const warnings: string[] = [];
const log = { warn: (msg: string) => void warnings.push(msg), info: () => undefined };

describe("MCP servers over stdio and Streamable HTTP", () => {
  it("lists server-everything's tools over stdio as everything.*, with its schemas, and calls echo", async () => {
    manager = createMcpManager([stdioServer("everything", [EVERYTHING, "stdio"])], { log });
    await manager.ready();
    expect(manager.servers()[0]).toMatchObject({ name: "everything", status: "connected" });
    const names = manager.tools().map((t) => t.spec.name);
    expect(names).toEqual(expect.arrayContaining(["everything.echo", "everything.get-sum"]));
    expect(names.every((n) => n.startsWith("everything."))).toBe(true);
    expect(tool(manager, "everything.echo").spec.parameters).toMatchObject({ type: "object", properties: { message: { type: "string" } } });
    expect(await tool(manager, "everything.echo").run({ message: "hello over stdio" }, ctx())).toBe("Echo: hello over stdio");
  });

  it("reaches server-everything over Streamable HTTP and calls its tools", async () => {
    http = await startEverythingHttp();
    manager = createMcpManager([httpServer("web", http.url)], { log });
    await manager.ready();
    expect(manager.servers()[0]).toMatchObject({ name: "web", status: "connected" });
    expect(await tool(manager, "web.echo").run({ message: "hello over HTTP" }, ctx())).toBe("Echo: hello over HTTP");
    expect(await tool(manager, "web.get-sum").run({ a: 2, b: 3 }, ctx())).toContain("5");
  });

  it("gives a tool error naming an HTTP server that went away, and reconnects when it is back", async () => {
    http = await startEverythingHttp();
    manager = createMcpManager([httpServer("web", http.url)], { log, backoff: { initialMs: 200, maxMs: 1_000 } });
    await manager.ready();
    await http.stop();
    const error = await failure(tool(manager, "web.echo").run({ message: "anyone?" }, ctx()));
    expect(error.message).toMatch(/^MCP server "web" failed the call to "echo": /);
    await waitFor(() => manager!.servers()[0]!.status !== "connected", "the lost connection to show");
    http = await startEverythingHttp(new URL(http.url).port);
    await waitFor(() => manager!.servers()[0]!.status === "connected", "the reconnection", 15_000);
    expect(await tool(manager, "web.echo").run({ message: "back" }, ctx())).toBe("Echo: back");
  });

  it("reads a real file through server-filesystem confined to a temp folder, and refuses one outside it", async () => {
    dir = await mkdtemp(path.join(tmpdir(), "delegate-mcp-fs-"));
    await writeFile(path.join(dir, "notes.txt"), "tide tables are due on Friday");
    manager = createMcpManager([stdioServer("files", [FILESYSTEM, dir])], { log });
    await manager.ready();
    const read = tool(manager, "files.read_text_file");
    expect(await read.run({ path: path.join(dir, "notes.txt") }, ctx())).toContain("tide tables are due on Friday");
    const refused = await failure(read.run({ path: "/etc/passwd" }, ctx()));
    expect(refused.message).toMatch(/^MCP server "files" answered with an error from files.read_text_file: .*denied/i);
  });
});

describe("MCP servers that fail", () => {
  it("reports a server that cannot start as failed with its error, and offers none of its tools", async () => {
    manager = createMcpManager([stdioServer("broken", ["-e", "process.stderr.write('boom: missing API key'); process.exit(2)"])], {
      log,
      backoff: { initialMs: 5_000, maxMs: 5_000 },
    });
    await manager.ready();
    const [info] = manager.servers();
    expect(info).toMatchObject({ name: "broken", status: "failed", tools: [] });
    expect(info!.error).toContain("boom: missing API key");
  });

  it("keeps reading failed while it retries a server that cannot start, never connecting again", async () => {
    const statuses: string[] = [];
    const connection = new McpConnection(stdioServer("broken", ["-e", "process.exit(2)"]), {
      backoff: { initialMs: 20, maxMs: 20 },
      onChange: () => statuses.push(connection.status),
    });
    connection.start();
    try {
      await waitFor(() => statuses.filter((s) => s === "failed").length >= 3, "three failed attempts");
      expect(statuses[0]).toBe("connecting");
      expect(statuses.slice(1)).toEqual(statuses.slice(1).map(() => "failed"));
    } finally {
      await connection.close();
    }
  });

  it("turns a crash mid-call into a tool error naming the server, and restarts it with a growing backoff", async () => {
    manager = createMcpManager([stdioServer("hostile", [HOSTILE])], { log, backoff: { initialMs: 300, maxMs: 5_000 } });
    await manager.ready();
    const gaps: number[] = [];
    for (let i = 0; i < 2; i++) {
      const crashed = await failure(tool(manager, "hostile.crash").run({}, ctx()));
      const at = Date.now();
      expect(crashed.message).toBe(
        'MCP server "hostile" closed the connection during the call to "crash" (it stopped or crashed); it is being restarted.',
      );
      expect(manager.servers()[0]).toMatchObject({ status: "restarting", error: expect.stringContaining("crashing on purpose") });
      // While it is down, a call says so at once instead of waiting.
      const down = await failure(tool(manager, "hostile.echo").run({ text: "x" }, ctx()));
      expect(down.message).toMatch(/^MCP server "hostile" is not available \(restarting: the server stopped/);
      await waitFor(() => manager!.servers()[0]!.status === "connected", "the restart");
      gaps.push(Date.now() - at);
    }
    expect(gaps[0]).toBeGreaterThanOrEqual(290);
    expect(gaps[1]).toBeGreaterThanOrEqual(590);
    expect(await tool(manager, "hostile.echo").run({ text: "back" }, ctx())).toBe("Echo: back");
  });

  it("gives a tool error within the configured timeout when a server never answers, or only drips notifications", async () => {
    manager = createMcpManager([stdioServer("hostile", [HOSTILE], { timeoutMs: 600 })], { log });
    await manager.ready();
    for (const name of ["never", "drip"]) {
      const started = Date.now();
      const error = await failure(tool(manager, `hostile.${name}`).run({}, ctx()));
      expect(error.message).toBe(`MCP server "hostile" did not answer the call to "${name}" within 600 ms.`);
      expect(Date.now() - started).toBeLessThan(3_000);
    }
    expect(manager.servers()[0]!.status).toBe("connected");
  });

  it("stops a call when the run is stopped", async () => {
    manager = createMcpManager([stdioServer("hostile", [HOSTILE])], { log });
    await manager.ready();
    const controller = new AbortController();
    setTimeout(() => controller.abort("killed"), 100);
    const started = Date.now();
    const error = await failure(tool(manager, "hostile.never").run({}, ctx(controller.signal)));
    expect(error.message).toMatch(/stopped before it finished/);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it("lists the tools again when the server says they changed", async () => {
    manager = createMcpManager([stdioServer("hostile", [HOSTILE])], { log });
    await manager.ready();
    let changes = 0;
    manager.onChange(() => changes++);
    expect(manager.tools().some((t) => t.spec.name === "hostile.grown_1")).toBe(false);
    expect(await tool(manager, "hostile.grow").run({}, ctx())).toBe("now 1 grown tools");
    await waitFor(() => manager!.tools().some((t) => t.spec.name === "hostile.grown_1"), "the refreshed tool list");
    expect(changes).toBeGreaterThan(0);
    expect(manager.servers()[0]!.tools.map((t) => t.name)).toContain("hostile.grown_1");
  });

  it("ends the server processes when it closes (app shutdown)", async () => {
    manager = createMcpManager([stdioServer("a", [HOSTILE]), stdioServer("b", [HOSTILE])], { log });
    await manager.ready();
    const pids = await Promise.all(["a.pid", "b.pid"].map(async (name) => Number(await tool(manager!, name).run({}, ctx()))));
    const alive = (pid: number) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    expect(pids.every(alive)).toBe(true);
    await manager.close();
    await waitFor(() => !pids.some(alive), "the server processes to exit", 8_000);
  });

  it("keeps a disabled server out of the way", async () => {
    manager = createMcpManager([stdioServer("off", [HOSTILE], { enabled: false })], { log });
    await manager.ready();
    expect(manager.servers()).toEqual([{ name: "off", status: "disabled", tools: [] }]);
  });
});
