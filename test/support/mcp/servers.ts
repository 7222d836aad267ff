import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import type { McpServerConfig } from "@/lib/mcp/config";
import { freePort } from "@/test/support/free-port";

/**
 * The real MCP servers the tests start: the reference servers from npm
 * (`server-everything` over stdio and Streamable HTTP, `server-filesystem` on a folder)
 * and the SDK servers in this folder (hostile, and one whose tools ask questions).
 */

const root = process.cwd();
export const EVERYTHING = path.join(root, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
export const FILESYSTEM = path.join(root, "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");
export const HOSTILE = path.join(root, "test/support/mcp/hostile-server.mjs");
export const ELICIT = path.join(root, "test/support/mcp/elicit-server.mjs");

const defaults = { timeoutMs: 10_000, requireApproval: false as const, enabled: true };

export function stdioServer(name: string, args: string[], extra: Partial<McpServerConfig> = {}): McpServerConfig {
  return { name, transport: "stdio", command: process.execPath, args, ...defaults, ...extra } as McpServerConfig;
}

export function httpServer(name: string, url: string, extra: Partial<McpServerConfig> = {}): McpServerConfig {
  return { name, transport: "http", url, ...defaults, ...extra } as McpServerConfig;
}

export interface RunningHttpServer {
  url: string;
  stop(): Promise<void>;
}

/**
 * server-everything over Streamable HTTP on a free port (it reads PORT; it listens on
 * every interface, which the tests cannot change). Resolves once it says it listens.
 */
export async function startEverythingHttp(onPort?: string): Promise<RunningHttpServer> {
  const port = onPort ?? (await freePort());
  const child = spawn(process.execPath, [EVERYTHING, "streamableHttp"], {
    env: { ...process.env, PORT: String(port) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("server-everything (HTTP) did not start in 20 s")), 20_000);
    let said = "";
    const listen = (chunk: Buffer) => {
      said += chunk.toString();
      if (said.includes("listening on port")) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on("data", listen);
    child.stderr!.on("data", listen);
    child.once("exit", (code) => reject(new Error(`server-everything (HTTP) exited with ${code}: ${said}`)));
  });
  return { url: `http://127.0.0.1:${port}/mcp`, stop: () => stopChild(child) };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 3_000);
  await exited;
  clearTimeout(timer);
}

/** Polls until `check` holds (or fails after `timeoutMs`): for state that changes in the background. */
export async function waitFor(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
